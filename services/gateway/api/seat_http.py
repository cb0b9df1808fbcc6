"""``POST /api/games/{id}/take-back`` and ``POST /api/games/{id}/vote``: a table seat's own seat commands
(``services/players/resign.py``, ``domain/seat_control.py``), beside ``/resign`` (``tables_http``).

The seat is the caller's (seat token or signed-in account), as for a move; each answers once the fold worker
has decided the command, with the rules' refusal as 409 (``seat_not_away``, ``seat_no_vote``, …).
"""

from __future__ import annotations

import msgspec
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response

from services.gateway.access import auth
from services.gateway.api.accounts_http import require_same_site
from services.gateway.api.players_protocol import Resigned
from services.gateway.api.requests import (
    ApiError,
    decode_body,
    feed_of,
    json_response,
    read_body,
    viewer_seat,
)
from services.gateway.context import gateway_of
from services.players import resign
from services.players.tables import TableError


class Vote(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """``POST /api/games/{id}/vote``: end the game (``true``) or play on (``false``)."""

    end: bool


class SeatDone(msgspec.Struct, frozen=True, kw_only=True):
    """What a seat command did: ``taken_back`` or ``voted``."""

    game_id: str
    seat: int
    done: str


async def _seat(request: Request) -> int:
    gateway = gateway_of(request)
    game_id = request.path_params["game_id"]
    await feed_of(gateway, game_id)  # 404 for no game
    if auth.bearer(request.headers.get("authorization")) is None:
        require_same_site(request)  # the cookie is what authenticates this write
    seat = await viewer_seat(gateway, request, game_id, required=True)
    if seat is None:  # not reached: required=True refuses a spectator
        raise ApiError(401, "missing_token", "only a seat does this")
    return seat


async def resign_game(request: Request) -> Response:
    """``POST /api/games/{game_id}/resign``: the caller's seat (seat token or signed-in account) resigns;
    a stand-in bot plays it to the end (``services/players/resign.py``)."""
    gateway, game_id = gateway_of(request), request.path_params["game_id"]
    seat = await _seat(request)
    try:
        first = await run_in_threadpool(resign.resign, gateway.services, gateway.redis_url, game_id, seat)
    except TableError as exc:
        raise ApiError(exc.status, exc.code, exc.message) from exc
    return json_response(Resigned(game_id=game_id, seat=seat, resigned=True, first=first))


async def take_back_seat(request: Request) -> Response:
    """The caller takes their seat back from the stand-in bot the clock handed it to."""
    gateway, game_id = gateway_of(request), request.path_params["game_id"]
    seat = await _seat(request)
    try:
        await run_in_threadpool(resign.take_back, gateway.services, game_id, seat)
    except TableError as exc:
        raise ApiError(exc.status, exc.code, exc.message) from exc
    return json_response(SeatDone(game_id=game_id, seat=seat, done="taken_back"))


async def vote_to_end(request: Request) -> Response:
    """The caller's vote in the open vote to end the game."""
    gateway, game_id = gateway_of(request), request.path_params["game_id"]
    seat = await _seat(request)
    body = decode_body(await read_body(request), Vote)
    try:
        await run_in_threadpool(resign.vote, gateway.services, game_id, seat, body.end)
    except TableError as exc:
        raise ApiError(exc.status, exc.code, exc.message) from exc
    return json_response(SeatDone(game_id=game_id, seat=seat, done="voted"))
