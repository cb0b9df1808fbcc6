"""``/api/games/{id}/rematch`` (issue 44.10): after a table's game ends, any of its players opens a new table
with the same game, seats, options, clock, rating and bots, and the others are invited to it.

The new table is private (its players reach it from their end screens, which read ``GET``; nobody else
needs it listed) with the proposer in seat 0. One rematch a game: ``hm:{g:<id>}:rematch`` names its table,
set with ``SET NX``. Two players proposing at once each open a table, one of them sets the name, and the
other cancels its own table and answers with the winner's, so both land at one table.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable
from typing import Any

import msgspec
import structlog
from starlette.requests import Request
from starlette.responses import Response

from events import keys
from services.gateway.access.sessions import account_of
from services.gateway.api.accounts_http import require_account, require_same_site
from services.gateway.api.requests import ApiError, feed_of, json_response
from services.gateway.context import Gateway, client_address, gateway_of
from services.players import tables
from services.players.tables import NO_CLOCK, TableError
from workers.jobs import table_clocks
from workers.jobs.account_ratings import seat_accounts_key

log = structlog.get_logger("rematch")

KEPT_S = 7 * 86_400
"""How long a game's rematch is named (its end screen is seldom opened after a week)."""

between: Callable[[str], Awaitable[None]] | None = None
"""Tests only: awaited with ``opened`` after the proposer's table is open and before it is named the
game's rematch, to make two proposals cross."""


class Rematch(msgspec.Struct, frozen=True, kw_only=True):
    game_id: str
    table_id: str | None
    """The rematch's table (open it with ``/?table=<id>``), or None: nobody proposed one."""
    yours: bool = False
    """The caller (signed in) played this game at a table, so may propose or take up its rematch."""


def rematch_key(game_id: str) -> str:
    return keys.game_key(game_id, "rematch")


async def get_rematch(request: Request) -> Response:
    """``GET``: the game's rematch table, if one was proposed."""
    gateway = gateway_of(request)
    game_id = request.path_params["game_id"]
    await feed_of(gateway, game_id)  # 404 for no game
    account = await account_of(request)
    pipe = gateway.redis.pipeline(transaction=False)
    pipe.get(rematch_key(game_id))
    pipe.hexists(seat_accounts_key(game_id), f"a:{account}")
    raw, seated = await pipe.execute()
    table_id = raw.decode() if raw else None
    return json_response(
        Rematch(game_id=game_id, table_id=table_id, yours=account is not None and bool(seated))
    )


async def propose(request: Request) -> Response:
    """``POST``: a player of the finished table game opens its rematch (or is given the one there is)."""
    require_same_site(request)
    account = await require_account(request)
    gateway = gateway_of(request)
    game_id = request.path_params["game_id"]
    feed = await feed_of(gateway, game_id)
    if not feed.finished:
        raise ApiError(409, "not_finished", "a rematch is proposed once the game has ended")
    seated = await gateway.redis.hgetall(seat_accounts_key(game_id))
    if f"a:{account}".encode() not in seated:
        raise ApiError(403, "not_a_player", "only the game's players propose its rematch")
    known = await gateway.redis.get(rematch_key(game_id))
    if known is not None:
        return json_response(Rematch(game_id=game_id, table_id=known.decode(), yours=True))
    spec = _same_table(feed.meta, seated)
    clock = table_clocks.decode(await gateway.redis.get(table_clocks.clock_key(game_id))) or NO_CLOCK
    try:
        table_id = await tables.open_table(
            gateway.redis, gateway.settings.tables, spec, account, client_address(request), clock, True
        )
    except TableError as exc:
        raise ApiError(exc.status, exc.code, exc.message) from exc
    named = await _name(gateway, game_id, table_id)
    return json_response(Rematch(game_id=game_id, table_id=named, yours=True))


async def _name(gateway: Gateway, game_id: str, table_id: str) -> str:
    """Name ``table_id`` the game's rematch; if another was named first, cancel ours and give theirs."""
    if between is not None:
        await between("opened")
    if await gateway.redis.set(rematch_key(game_id), table_id, nx=True, ex=KEPT_S):
        log.info("rematch_opened", game_id=game_id, table_id=table_id)
        return table_id
    mine = await tables.load(gateway.redis, table_id)
    if mine is not None:
        with contextlib.suppress(TableError):  # already closed: nothing of ours is left open
            await tables.cancel(gateway.redis, mine)
    theirs = await gateway.redis.get(rematch_key(game_id))
    return theirs.decode() if theirs else table_id


def _same_table(meta: Any, seated: dict[bytes, bytes]) -> tuple[str, int, dict[str, Any], bool, list[str]]:
    """The finished game's table again: its accounts sat in the first seats and its bots in the last (a
    resigned seat's stand-in is not one of them: that seat was an account's)."""
    humans = sum(1 for k in seated if k.startswith(b"s:"))
    seats = meta.header.seats
    bots = [meta.bots.get(str(s), "greedy") for s in range(humans, seats)]
    return meta.header.game, seats, dict(meta.header.options), seated.get(b"rated") == b"1", bots
