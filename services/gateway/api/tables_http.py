"""``/api/tables``: open tables, one-click seats, and a game made when the table is full (or when its
creator starts it with enough seated); ``/api/me/games``: the games an account sits in, whose turn it is.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import structlog
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response

from domain.engine import Game, RuleViolation
from events.errors import UnknownGame
from events.store import meta_from_hash, queue_meta_read
from services.bootstrap import ClusterNotSupported
from services.gateway.api import names
from services.gateway.api.accounts_http import require_account, require_same_site
from services.gateway.api.game_winners import winners_of
from services.gateway.api.linked_games import linked_key
from services.gateway.api.players_protocol import MyGame, MyGames, OpenTable, TableInfo, TableList
from services.gateway.api.requests import (
    ApiError,
    charge_command,
    decode_body,
    json_response,
    read_body,
)
from services.gateway.context import Gateway, client_address, gateway_of
from services.players import table_start, tables
from services.players.table_start import display_names as display_names  # chat's and ratings' too
from services.players.tables import Table, TableError, now_ms
from workers.jobs import table_clocks
from workers.jobs.account_ratings import account_games_key, seat_accounts_key
from workers.jobs.bots import bot_names
from workers.jobs.rating_inputs import remember_address

log = structlog.get_logger("tables")

MY_GAMES_LIMIT = 50


async def _infos(gateway: Gateway, listed: list[Table]) -> list[TableInfo]:
    """The tables as the lobby shows them, their accounts' names read in one round trip."""
    shown = iter(await display_names(gateway.redis, [a for t in listed for a in (t.creator, *t.seated)]))
    out = []
    for table in listed:
        game = gateway.games.get(table.game)
        creator, seated = next(shown), [next(shown) for _ in table.seated]
        out.append(
            TableInfo(
                table_id=table.table_id, game=table.game, title=game.title if game else table.game,
                seats=table.seats, options=table.options, rated=table.rated, creator=creator, seated=seated,
                bots=table.bots, free=table.seats - len(table.bots) - len(seated), status=table.status,
                game_id=table.game_id, clock=table.clock.label(), on_timeout=table.clock.on_timeout,
                private=table.private,
            )
        )  # fmt: skip
    return out


async def _info(gateway: Gateway, table: Table) -> TableInfo:
    return (await _infos(gateway, [table]))[0]


async def list_tables(request: Request) -> Response:
    """``GET /api/tables``: the open tables, newest first."""
    gateway = gateway_of(request)
    return json_response(
        TableList(
            tables=await _infos(gateway, await tables.open_tables(gateway.redis, gateway.settings.tables))
        )
    )


async def get_table(request: Request) -> Response:
    """``GET /api/tables/{table_id}``: one table (a started one names its game)."""
    gateway = gateway_of(request)
    return json_response(await _info(gateway, await _table(gateway, request.path_params["table_id"])))


async def _table(gateway: Gateway, table_id: str) -> Table:
    table = await tables.load(gateway.redis, table_id)
    if table is None:
        raise ApiError(404, "unknown_table", f"no table {table_id!r}")
    return table


async def open_table(request: Request) -> Response:
    """``POST /api/tables``: open a table (201); the signed-in creator takes seat 0."""
    require_same_site(request)
    account = await require_account(request)
    gateway = gateway_of(request)
    charge_command(gateway, client_address(request), None)
    await remember_address(gateway.redis, account, client_address(request), now_ms())  # ratings: issue 44.9
    spec = decode_body(await read_body(request), OpenTable)
    game = gateway.games.get(spec.game)
    if game is None:
        raise ApiError(422, "unknown_game_type", f"unknown game {spec.game!r}; see /api/catalog")
    await _check_setup(game, spec)
    if len(spec.bots) >= spec.seats:
        raise ApiError(422, "no_open_seat", "a table needs a seat for its creator besides the bots")
    unknown = sorted(set(spec.bots) - set(bot_names(game)))
    if unknown:  # now, not when the table fills (a plugin game has no search bot)
        raise ApiError(
            422,
            "unknown_bot",
            f"{game.title} has no bot {unknown[0]!r}; its bots: {', '.join(bot_names(game))}",
        )
    try:
        clock = table_clocks.chosen(spec.clock)
    except ValueError as exc:
        raise ApiError(422, "bad_clock", str(exc)) from exc
    spec_of_table = (spec.game, spec.seats, spec.options, spec.rated, [str(b) for b in spec.bots])
    try:
        table_id = await tables.open_table(
            gateway.redis, gateway.settings.tables, spec_of_table, account, client_address(request), clock,
            spec.private,
        )  # fmt: skip
    except TableError as exc:
        raise ApiError(exc.status, exc.code, exc.message) from exc
    log.info("table_opened", table_id=table_id, game=spec.game, seats=spec.seats, account=account)
    return json_response(await _info(gateway, await _table(gateway, table_id)), 201)


async def _check_setup(game: Game[Any, Any, Any, Any], spec: OpenTable) -> None:
    """Refuse (422) a seat count or options the game would refuse, now rather than when the table fills."""
    try:
        await run_in_threadpool(game.start, spec.seats, spec.options, bytes(32))
    except RuleViolation as exc:
        raise ApiError(422, exc.code, exc.message) from exc


TableAction = Callable[[Gateway, Table, str], Awaitable[None]]
"""What a signed-in account does at a table: given the gateway, the table as loaded and the account."""


async def _at_table(request: Request, action: TableAction) -> Response:
    """The signed-in account's ``action`` at the path's table, written from this site's own page; the
    answer is the table as it is after (a ``TableError`` becomes its status)."""
    require_same_site(request)
    account = await require_account(request)
    gateway = gateway_of(request)
    table = await _table(gateway, request.path_params["table_id"])
    await remember_address(gateway.redis, account, client_address(request), now_ms())  # ratings: issue 44.9
    try:
        await action(gateway, table, account)
    except TableError as exc:
        raise ApiError(exc.status, exc.code, exc.message) from exc
    return json_response(await _info(gateway, await _table(gateway, table.table_id)))


async def join_table(request: Request) -> Response:
    """``POST /api/tables/{table_id}/join``: take the next seat; the last seat taken makes the game."""
    return await _at_table(request, _join)


async def _join(gateway: Gateway, table: Table, account: str) -> None:
    seated = await tables.join(gateway.redis, gateway.settings.tables, table.table_id, account)
    if seated >= table.seats - len(table.bots):
        await _start(gateway, table)


async def leave_table(request: Request) -> Response:
    """``POST /api/tables/{table_id}/leave``: give up one's seat at an open table; its creator leaving
    closes the table (``cancelled``)."""
    return await _at_table(request, _leave)


async def _leave(gateway: Gateway, table: Table, account: str) -> None:
    if table.creator == account:
        await tables.cancel(gateway.redis, table)
    else:
        await tables.leave(gateway.redis, table.table_id, account)


async def start_table(request: Request) -> Response:
    """``POST /api/tables/{table_id}/start``: the creator starts with the players seated so far."""
    return await _at_table(request, _start_early)


async def _start_early(gateway: Gateway, table: Table, account: str) -> None:
    if table.creator != account:
        raise ApiError(403, "not_creator", "only the table's creator starts it early")
    game = gateway.games[table.game]
    if len(table.seated) + len(table.bots) < game.min_seats:
        raise ApiError(409, "too_few_players", f"{game.title} needs at least {game.min_seats} players")
    await _start(gateway, table)


async def _start(gateway: Gateway, table: Table) -> None:
    try:
        game_id = await table_start.start(
            gateway.services, gateway.redis, gateway.settings.tables, table, gateway.redis_url
        )
    except (RuleViolation, ClusterNotSupported) as exc:
        raise ApiError(422, "cannot_start", str(exc)) from exc
    log.info("table_started", table_id=table.table_id, game_id=game_id)


async def my_games(request: Request) -> Response:
    """``GET /api/me/games``: every game the signed-in account sits in, newest first, and whose turn."""
    account = await require_account(request)
    return json_response(MyGames(games=await games_of(gateway_of(request), account)))


async def games_of(gateway: Gateway, account: str) -> list[MyGame]:
    """The account's games, newest first. Whose turn it is comes from the game's feed, loaded for the live
    games only: a finished game's meta says all there is but its winners, read once and kept
    (``game_winners.py``), and an account may have played hundreds."""
    redis = gateway.redis
    listed = await redis.zrevrange(account_games_key(account), 0, MY_GAMES_LIMIT - 1, withscores=True)
    ids, since = [i.decode() for i, _ in listed], {i.decode(): int(ms) for i, ms in listed}
    pipe = redis.pipeline(transaction=False)
    for game_id in ids:
        queue_meta_read(pipe, game_id)
        pipe.hget(seat_accounts_key(game_id), f"a:{account}")
        pipe.hget(linked_key(game_id), f"a:{account}")  # a game by links: api/linked_games.py
    replies = await pipe.execute()
    out = []
    for game_id, raw, position, at_table, linked in zip(
        ids, replies[::4], replies[1::4], replies[2::4], replies[3::4], strict=True
    ):
        seat = at_table if at_table is not None else linked
        if not raw or b"header" not in raw or seat is None:
            continue  # deleted by hand, or never seated
        meta = meta_from_hash(raw, position)
        to_act = await _to_act(gateway, game_id) if meta.status != "finished" else []
        game = gateway.games.get(meta.header.game)
        out.append(
            MyGame(
                game_id=game_id, game=meta.header.game, title=game.title if game else meta.header.game,
                seat=int(seat), names=await names.load(redis, game_id, meta.header.seats, meta.bots),
                status="finished" if to_act is None else meta.status, to_act=to_act or [],
                your_turn=int(seat) in (to_act or []), created_ms=since[game_id],
            )
        )  # fmt: skip
    winners = await winners_of(gateway, [g.game_id for g in out if g.status == "finished"])
    for mine in out:
        mine.winners = winners.get(mine.game_id, [])
    return out


async def _to_act(gateway: Gateway, game_id: str) -> list[int] | None:
    """The seats to act in a live game (None: it has just ended; its meta said live a moment ago)."""
    try:
        feed = await gateway.hub.feed(game_id)
    except UnknownGame:
        return []
    return None if feed.finished else feed.to_act(feed.state)
