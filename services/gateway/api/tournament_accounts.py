"""``POST /api/tournaments/{id}/account``: a person entrant ties himself to his account with the key he was
given, so that his tournament games are rated with his account's rating and listed among his games.

From then on, each round's game seats the account as well as the key (``workers/jobs/account_ratings.py``,
``queue_tournament_accounts``); the table he sits at now, if its game is still being played, is tied at once.
An entrant is tied to one account, and an account to one entrant of a tournament.
"""

from __future__ import annotations

import time
from typing import Any

import msgspec
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response

from events.tournament_store import UnknownTournament
from services import tournament_people as people
from services import tournament_service as service
from services.bootstrap import Services
from services.gateway.api.accounts_http import require_account, require_same_site
from services.gateway.api.requests import ApiError, decode_body, json_response, read_body
from services.gateway.context import client_address, gateway_of
from workers.jobs.account_ratings import seat_account, tournament_accounts_key
from workers.jobs.rating_inputs import remember_address


class ClaimEntrant(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """The person's key, as ``POST /api/tournaments`` returned it."""

    key: str


class EntrantClaimed(msgspec.Struct, kw_only=True):
    tournament_id: str
    player: int
    name: str
    game_id: str | None
    """The game of the table the entrant sits at now, tied to the account too (null: none in play)."""


async def claim_entrant(request: Request) -> Response:
    """Tie the key's entrant to the signed-in account (200); 403 for a key of nobody here, 409 when either
    is tied to another already."""
    require_same_site(request)
    account = await require_account(request)
    services = gateway_of(request).services
    tid = request.path_params["tournament_id"]
    body = decode_body(await read_body(request), ClaimEntrant)
    now = int(time.time() * 1000)
    await remember_address(gateway_of(request).redis, account, client_address(request), now)  # issue 44.9
    if len(body.key) > 100:
        raise ApiError(403, "wrong_key", "this is not the key of a person in this tournament")
    try:
        claimed = await run_in_threadpool(_claim, services, tid, body.key, account)
    except UnknownTournament as exc:
        raise ApiError(404, "unknown_tournament", f"no tournament {tid!r}") from exc
    return json_response(claimed)


def _claim(services: Services, tid: str, key: str, account: str) -> EntrantClaimed:
    state = service.load(services, tid)
    player = people.player_of(services, tid, key)
    if player is None:
        raise ApiError(403, "wrong_key", "this is not the key of a person in this tournament")
    _tie(services.redis, tid, player, account)
    table: dict[str, Any] = people.current_table(state, player, key)
    game_id = table["game_id"] if not table["finished"] else None
    if game_id is not None:
        seat_account(services.redis, game_id, table["seat"], account)
    return EntrantClaimed(tournament_id=tid, player=player, name=state.entrants[player].name, game_id=game_id)


_TIE = """
local tied = redis.call('HGETALL', KEYS[1])
for i = 1, #tied, 2 do
  if tied[i] == ARGV[1] and tied[i + 1] ~= ARGV[2] then return -1 end
  if tied[i] ~= ARGV[1] and tied[i + 1] == ARGV[2] then return -2 end
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1
"""
"""Tie an entrant to an account unless either is tied to another: one script, so two claims at once
cannot both pass the check."""


def _tie(client: Any, tid: str, player: int, account: str) -> None:
    tied = int(client.eval(_TIE, 1, tournament_accounts_key(tid), str(player), account))
    if tied == -1:
        raise ApiError(409, "entrant_claimed", "this entrant is tied to another account")
    if tied == -2:
        raise ApiError(409, "account_entered", "your account is tied to another entrant of this tournament")
