"""``/api/games/{id}/presence``: who of a game's players is online, away or offline (issue 44: the header
said "connected" while a player was gone).

Each seated page says every ``BEAT_S`` seconds that it is there (``PUT``, by its seat token or session):
``online`` while it is shown, ``away`` while hidden (another tab, a phone's screen off). The answer to
``GET`` reads those beats against the gateway's clock: a seat is ``online`` (or ``away``) while its last
beat is under ``FRESH_MS`` old, ``away`` while under ``GONE_MS`` (a beat or two lost), ``offline`` after
that or with none. A page whose browser closed or lost its network says nothing more, so within
``FRESH_MS`` + one poll it reads ``away``, and ``offline`` within ``GONE_MS``: seconds, not a clock's
hours. The beats are one hash per game (seat -> ``<ms>:<state>``), kept a day after the last one; nothing a
client sends can grow it beyond one field per seat.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec
from starlette.requests import Request
from starlette.responses import Response

from events import keys
from events.store import now_ms
from services.gateway.access import auth
from services.gateway.api.accounts_http import require_same_site
from services.gateway.api.requests import ApiError, decode_body, json_response, read_body, viewed_game

BEAT_S = 5
FRESH_MS = 12_000
GONE_MS = 20_000
KEPT_S = 86_400
STATES = ("online", "away")


class Beat(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """``PUT /api/games/{id}/presence``: the page is shown (``online``) or hidden (``away``)."""

    state: str = "online"


class SeatPresence(msgspec.Struct, frozen=True, kw_only=True):
    seat: int
    presence: str
    """``online``, ``away`` or ``offline``; ``bot`` for a bot's seat and a resigned one (its stand-in's)."""
    seen_ms: int | None
    """The gateway's time of the seat's last beat (None: never)."""


class Presence(msgspec.Struct, frozen=True, kw_only=True):
    game_id: str
    now_ms: int
    seats: list[SeatPresence]


def presence_key(game_id: str) -> str:
    return keys.game_key(game_id, "presence")


async def beat(request: Request) -> Response:
    """``PUT``: the caller's seat is there (204); a spectator is refused (401/403)."""
    gateway, feed, seat = await viewed_game(request, required=True)
    if auth.bearer(request.headers.get("authorization")) is None:
        require_same_site(request)  # the cookie is what authenticates this write
    said = decode_body(await read_body(request), Beat)
    if said.state not in STATES:
        raise ApiError(422, "bad_state", f"state is one of {', '.join(STATES)}")
    key = presence_key(feed.game_id)
    pipe = gateway.redis.pipeline(transaction=False)
    pipe.hset(key, str(seat), f"{now_ms()}:{said.state}")
    pipe.expire(key, KEPT_S)
    await pipe.execute()
    return Response(status_code=204)


async def presence(request: Request) -> Response:
    """``GET``: each seat's presence now."""
    gateway, feed, _ = await viewed_game(request)
    raw = await gateway.redis.hgetall(presence_key(feed.game_id))
    now = now_ms()
    beats = {k.decode(): v.decode() for k, v in raw.items()}
    bots = played_by_bots(feed.meta.bots, feed.state)
    seats = [
        SeatPresence(seat=seat, presence="bot", seen_ms=None)
        if seat in bots
        else _seat(seat, beats.get(str(seat)), now)
        for seat in range(feed.meta.header.seats)
    ]
    return json_response(Presence(game_id=feed.game_id, now_ms=now, seats=seats))


def _seat(seat: int, beat: str | None, now: int) -> SeatPresence:
    """A seat's presence from its last beat (a stored value that is not one reads as none)."""
    at, _, state = (beat or "").partition(":")
    if not at.isdigit() or state not in STATES:
        return SeatPresence(seat=seat, presence="offline", seen_ms=None)
    age = now - int(at)
    if age < FRESH_MS:
        shown = state
    elif age < GONE_MS:
        shown = "away"
    else:
        shown = "offline"
    return SeatPresence(seat=seat, presence=shown, seen_ms=int(at))


def played_by_bots(bots: Mapping[str, str], state: Any) -> set[int]:
    """The seats a bot plays for good: the game's bot seats and the resigned ones (``SeatResigned``), which
    no beat of a page would ever make online (issue 44: they read "offline")."""
    control = getattr(state, "seat_control", None)
    resigned = set(control.resigned) if control is not None else set()
    return {int(seat) for seat in bots if seat.isdigit()} | resigned
