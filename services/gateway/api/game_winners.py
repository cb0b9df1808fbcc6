"""The winners of finished games, for *My games* (issue 44.10: lists showed no winner).

A finished game's outcome never changes, so it is read once from its feed and kept in ``hm:games:winners``
(game id -> the winning seats, JSON) with ``HSETNX``: two gateways reading it at once write the same value
and the first stays. A list reads at most ``LOADS_PER_LIST`` unknown ones a time (a feed load reads the
game's log), so an account with fifty finished games unseen costs a few reads a refresh, not fifty; the
rest show their winner on a later refresh.
"""

from __future__ import annotations

from typing import Any

import msgspec
import structlog

from events import keys
from events.errors import UnknownGame
from services.gateway.context import Gateway

log = structlog.get_logger("my_games")

WINNERS = keys.GAMES_WINNERS
LOADS_PER_LIST = 5


async def winners_of(gateway: Gateway, finished: list[str]) -> dict[str, list[int]]:
    """The winning seats of each of the ``finished`` games known or loaded now (a game left out: not yet)."""
    if not finished:
        return {}
    raw = await gateway.redis.hmget(WINNERS, finished)
    known = {g: _seats(r) for g, r in zip(finished, raw, strict=True) if r is not None}
    for game_id in [g for g in finished if g not in known][:LOADS_PER_LIST]:
        seats = await _load(gateway, game_id)
        if seats is not None:
            known[game_id] = seats
            await gateway.redis.hsetnx(WINNERS, game_id, msgspec.json.encode(seats))
    return known


def _seats(raw: Any) -> list[int]:
    """A stored value; a record changed by hand reads as no winner rather than failing the list."""
    try:
        return msgspec.json.decode(raw, type=list[int])
    except (msgspec.DecodeError, msgspec.ValidationError):
        return []


async def _load(gateway: Gateway, game_id: str) -> list[int] | None:
    try:
        feed = await gateway.hub.feed(game_id)
    except UnknownGame:
        return None
    outcome = feed.game.outcome(feed.state) if feed.state is not None else None
    return None if outcome is None else [int(s) for s in outcome.winners]
