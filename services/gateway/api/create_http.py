"""``POST /api/games``: a game, its seats' tokens, names and spectators' delay, whole or not at all
(``services/game_creation.py`` has the steps and what ``serve``'s reconciler does with a killed creation)."""

from __future__ import annotations

import re

import structlog
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response

from domain.engine import RuleViolation
from events.errors import GameExists
from services import game_creation
from services.bootstrap import ClusterNotSupported
from services.games import checked_game_id
from services.games import create_game as create_game_service
from services.gateway.access import auth
from services.gateway.api import names
from services.gateway.api.protocol import CreateGame, GameCreated, SeatGrant
from services.gateway.api.requests import (
    ApiError,
    charge_command,
    decode_body,
    json_response,
    read_body,
    require_admin,
)
from services.gateway.context import client_address, gateway_of

log = structlog.get_logger("gateway")

MAX_DELAY_S = 86_400


async def create_game(request: Request) -> Response:
    """``POST /api/games``: create a game; every human seat gets a secret token, shown only here."""
    gateway = gateway_of(request)
    require_admin(request, "creating games")
    charge_command(gateway, client_address(request), None)
    spec = decode_body(await read_body(request), CreateGame)
    if spec.game not in gateway.games:
        raise ApiError(422, "unknown_game_type", f"unknown game {spec.game!r}; see /api/catalog")
    bots = _bot_seats(spec)
    chosen = names.checked(spec.names, spec.seats)
    await names.refuse_impersonation(gateway.redis, chosen)  # before anything is made
    if spec.game_id is not None:
        try:
            checked_game_id(spec.game_id, client_chosen=True)
        except RuleViolation as exc:
            raise ApiError(400, "bad_game_id", exc.message) from exc
    mark = game_creation.new_mark()
    try:
        game_id, meta = await run_in_threadpool(
            create_game_service,
            gateway.services,
            spec.game,
            spec.seats,
            spec.options,
            game_id=spec.game_id,
            bots=bots,
            tournament=spec.tournament,
            spectator_delay=max(0, spec.spectator_delay),
            redis_url=gateway.redis_url,
            hold=mark,
        )
    except RuleViolation as exc:
        raise ApiError(422, exc.code, exc.message) from exc
    except GameExists as exc:
        raise ApiError(409, "game_exists", f"a game {spec.game_id!r} exists already") from exc
    except ClusterNotSupported as exc:  # bot seats on a Cluster without RQ_REDIS_URL: nothing was written
        raise ApiError(422, "bots_unavailable", str(exc)) from exc
    await game_creation.step("made")
    tokens = auth.new_tokens(s for s in range(spec.seats) if s not in bots)
    delay_s = min(max(0, spec.spectator_delay_seconds), MAX_DELAY_S)
    if not await game_creation.finish(gateway.redis, game_id, mark, tokens, chosen, delay_s):
        raise ApiError(503, "creation_interrupted", "the game was not made in time; try again")
    await game_creation.step("finished")
    await run_in_threadpool(
        game_creation.publish,
        gateway.services,
        game_id,
        meta.header.created_ms,
        bool(bots),
        gateway.redis_url,
    )
    grants = [SeatGrant(seat=s, token=tokens.get(s), bot=bots.get(s)) for s in range(spec.seats)]
    log.info("game_created", game_id=game_id, game=spec.game, seats=spec.seats, bots=len(bots))
    watch = f"{gateway.settings.public_url or ''}{request.app.url_path_for('game_page', game_id=game_id)}"
    return json_response(GameCreated(game_id=game_id, game=spec.game, seats=grants, watch_url=watch), 201)


SEAT_TEXT = re.compile(r"^[0-9]{1,4}\Z")
"""A seat number as a client writes it: ASCII digits only. ``str.isdigit`` also takes ``"²"`` (which ``int``
refuses: a 500) and ``"١"`` (which ``int`` reads as 1: another seat than the one meant)."""


def _bot_seats(spec: CreateGame) -> dict[int, str]:
    bots: dict[int, str] = {}
    for seat_text, name in spec.bots.items():
        if not SEAT_TEXT.match(seat_text):
            raise ApiError(
                400, "bad_bot_seat", f"a bot seat is a seat number in ASCII digits, not {seat_text[:20]!r}"
            )
        if not 0 <= int(seat_text) < spec.seats:
            raise ApiError(422, "bad_bot_seat", f"bot seat {seat_text!r} is not a seat of this game")
        bots[int(seat_text)] = name
    return bots
