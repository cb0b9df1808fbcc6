"""A table's game, made whole or not at all (issue 43, finding 10: a gateway killed between a table's claim
and its game left tables ``starting`` for ever with no game, and games with no accounts record).

Starting is three steps, each safe to repeat, so that whoever comes second finishes what the first began:

1. **claim** (one Lua script): the table goes ``open`` -> ``starting`` with the id its game will have
   (``pending_game``), chosen now; the game counts toward its creator's and its address's quotas from here;
2. **make** the game under that id (``services.games.create_game``: atomic, and ``GameExists`` for a second
   maker, which then goes on as if it had made it);
3. **finish** (one Lua script): who sits where, the game in each account's *My games*, the seats' names and
   the table ``started`` — written together, only while the table still waits for that very game.

A gateway that dies after 1 or 2 leaves a table ``starting``; ``serve``'s reconciler (``reconcile``) makes
its game if need be and finishes it once the claim is ``STALE_MS`` old. A game the rules refuse (seats or
options; nothing was written) undoes the claim: the table is open again, its quota given back.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import structlog
from starlette.concurrency import run_in_threadpool

from domain.engine import RuleViolation
from events import keys, seat_names
from events.errors import GameExists
from services.bootstrap import ClusterNotSupported, Services
from services.games import create_game
from services.gateway.feeds.fanout import spectating_key
from services.players.table_clock import LIVE, expire_idle
from services.players.table_settings import TableSettings
from services.players.tables import (
    COUNT_GAMES,
    OPEN,
    PENDING_FLOOR_MS,
    STARTED_TTL_S,
    Table,
    TableError,
    account_made_key,
    account_tables_key,
    address_made_key,
    address_tables_key,
    decoded,
    expire_open,
    now_ms,
    seated_key,
    table_key,
)
from workers.jobs.account_ratings import account_games_key, seat_accounts_key
from workers.jobs.failures import TRANSIENT
from workers.jobs.table_clocks import clock_key

log = structlog.get_logger("tables")

STARTING = keys.TABLES_STARTING
"""Tables being started: table id by when it was claimed (the reconciler's list)."""
STALE_MS = 10_000
"""A claim older than this whose table is not ``started`` was left by a gateway that died (a start takes
milliseconds); the reconciler takes it over. Finishing is idempotent, so a slow gateway that comes back
afterwards agrees with it."""

_CLAIM = (
    COUNT_GAMES
    + """
-- KEYS: table, seated, OPEN, STARTING, the creator's open tables, the address's, the creator's games, the address's,
--       the game's clock (workers/jobs/table_clocks.py)
-- ARGV: table id, game id, now, games/account, games/address, floor, cutoff
local f = redis.call('HMGET', KEYS[1], 'status', 'created_ms')
if f[1] ~= 'open' or (tonumber(f[2]) or 0) < tonumber(ARGV[7]) then return {-1} end
local stale = {}
local refused = 0
if live_games(KEYS[7], tonumber(ARGV[6]), stale) >= tonumber(ARGV[4]) then refused = -5
elseif live_games(KEYS[8], tonumber(ARGV[6]), stale) >= tonumber(ARGV[5]) then refused = -6 end
if refused < 0 then prune(stale) return {refused} end
redis.call('HSET', KEYS[1], 'status', 'starting', 'pending_game', ARGV[2], 'claimed_ms', ARGV[3])
prune(stale)
redis.call('ZREM', KEYS[3], ARGV[1])
redis.call('ZADD', KEYS[4], ARGV[3], ARGV[1])
redis.call('SREM', KEYS[5], ARGV[1])
redis.call('SREM', KEYS[6], ARGV[1])
redis.call('ZADD', KEYS[7], ARGV[3], ARGV[2])
redis.call('ZADD', KEYS[8], ARGV[3], ARGV[2])
local clock = redis.call('HGET', KEYS[1], 'clock')
if clock then redis.call('SET', KEYS[9], clock) end  -- before its game exists: every clock hook sees it
local seated = redis.call('LRANGE', KEYS[2], 0, -1)
table.insert(seated, 1, 1)
return seated
"""
)
_FINISH = """
-- KEYS: table, seated, STARTING, the game's seat accounts, its spectating hash, LIVE, then each account's games
-- ARGV: table id, game id, created ms, rated, names (JSON), ttl, then the accounts by seat
local f = redis.call('HMGET', KEYS[1], 'status', 'pending_game')
if f[2] ~= ARGV[2] or (f[1] ~= 'starting' and f[1] ~= 'started') then return 0 end
local n = #ARGV - 6
local mapping = {'rated', ARGV[4]}
for seat = 0, n - 1 do
  local account = ARGV[7 + seat]
  table.insert(mapping, 's:' .. seat); table.insert(mapping, account)
  table.insert(mapping, 'a:' .. account); table.insert(mapping, seat)
  redis.call('ZADD', KEYS[7 + seat], ARGV[3], ARGV[2])
end
redis.call('HSET', KEYS[4], unpack(mapping))
redis.call('ZADD', KEYS[6], ARGV[3], ARGV[2])
redis.call('HSET', KEYS[5], 'names', ARGV[5])  -- events/seat_names.py's field
redis.call('HSET', KEYS[1], 'status', 'started', 'game_id', ARGV[2])
redis.call('ZREM', KEYS[3], ARGV[1])
redis.call('EXPIRE', KEYS[1], ARGV[6])
redis.call('EXPIRE', KEYS[2], ARGV[6])
return 1
"""
_UNDO = """
-- KEYS: table, OPEN, STARTING, the creator's open tables, the address's, the creator's games, the address's
-- ARGV: table id, game id
local f = redis.call('HMGET', KEYS[1], 'status', 'pending_game', 'created_ms')
if f[1] ~= 'starting' or f[2] ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], 'status', 'open')
redis.call('HDEL', KEYS[1], 'pending_game', 'claimed_ms')
redis.call('ZADD', KEYS[2], f[3], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
redis.call('SADD', KEYS[4], ARGV[1])
redis.call('SADD', KEYS[5], ARGV[1])
redis.call('ZREM', KEYS[6], ARGV[2])
redis.call('ZREM', KEYS[7], ARGV[2])
return 1
"""

REFUSED = (RuleViolation, ClusterNotSupported)
"""A game that cannot be made (nothing was written): the claim is undone."""

Hook = Callable[[str], Awaitable[None]]
between_steps: Hook | None = None
"""Tests only: awaited with the step just done (``claimed``, ``made``) by the gateway's start, to pause or
kill it there deterministically."""


async def start(services: Services, redis: Any, settings: TableSettings, table: Table, url: str) -> str:
    """Make the table's game with the seated accounts (only one caller gets to claim; the others are
    refused); returns its id."""
    game_id = uuid.uuid4().hex[:12]
    claimed = await redis.eval(*_claim_call(settings, table, game_id, now_ms()))
    if int(claimed[0]) < 0:
        raise _refusal(int(claimed[0]), settings)
    accounts = [a.decode() for a in claimed[1:]]
    await _step("claimed")
    try:
        created_ms = await run_in_threadpool(_make, services, table, game_id, len(accounts), url)
    except REFUSED:
        await redis.eval(*_undo_call(table, game_id))
        raise
    await _step("made")
    names = await display_names(redis, accounts)
    await redis.eval(*_finish_call(table, game_id, accounts, names, created_ms))
    return game_id


async def _step(name: str) -> None:
    if between_steps is not None:
        await between_steps(name)


def _refusal(code: int, settings: TableSettings) -> TableError:
    if code == -1:
        return TableError(409, "table_closed", "this table's game is made already, or the table closed")
    limit, whose = (
        (settings.games_per_account, "its creator's tables")
        if code == -5
        else (settings.games_per_address, "the tables from its creator's address")
    )
    return TableError(409, "too_many_games", f"{whose} have {limit} live games already; finish one first")


def _claim_call(settings: TableSettings, table: Table, game_id: str, now: int) -> list[Any]:
    cutoff = now - settings.open_minutes * 60_000
    return [
        _CLAIM, 9, table_key(table.table_id), seated_key(table.table_id), OPEN, STARTING,
        account_tables_key(table.creator), address_tables_key(table.address), account_made_key(table.creator),
        address_made_key(table.address), clock_key(game_id), table.table_id, game_id, now, settings.games_per_account,
        settings.games_per_address, now - PENDING_FLOOR_MS, cutoff,
    ]  # fmt: skip


def _undo_call(table: Table, game_id: str) -> list[Any]:
    return [
        _UNDO, 7, table_key(table.table_id), OPEN, STARTING, account_tables_key(table.creator),
        address_tables_key(table.address), account_made_key(table.creator), address_made_key(table.address),
        table.table_id, game_id,
    ]  # fmt: skip


def _finish_call(
    table: Table, game_id: str, accounts: list[str], shown: list[str], created_ms: int
) -> list[Any]:
    bots = [f"{bot.capitalize()} bot {len(accounts) + i + 1}" for i, bot in enumerate(table.bots)]
    return [
        _FINISH, 6 + len(accounts), table_key(table.table_id), seated_key(table.table_id), STARTING,
        seat_accounts_key(game_id), spectating_key(game_id), LIVE, *[account_games_key(a) for a in accounts],
        table.table_id, game_id, created_ms, int(table.rated), seat_names.encoded([*shown, *bots]),
        STARTED_TTL_S, *accounts,
    ]  # fmt: skip


def _make(services: Services, table: Table, game_id: str, humans: int, url: str) -> int:
    """The game under ``game_id`` (made here, or already by the other maker); its creation time."""
    bots = {humans + i: bot for i, bot in enumerate(table.bots)}
    try:
        _, meta = create_game(
            services, table.game, humans + len(bots), table.options, game_id=game_id, bots=bots, redis_url=url
        )
    except GameExists:
        meta = services.store.meta(game_id)
    return meta.header.created_ms


async def display_names(redis: Any, accounts: list[str]) -> list[str]:
    """The names as their owners chose them (accounts are keyed in lower case)."""
    if not accounts:
        return []
    pipe = redis.pipeline(transaction=False)
    for account in accounts:
        pipe.hget(keys.account(account), "name")
    return _shown(await pipe.execute(), accounts)


def _shown(replies: list[bytes | None], accounts: list[str]) -> list[str]:
    return [raw.decode() if raw else account for raw, account in zip(replies, accounts, strict=True)]


# --- serve's reconciler ---------------------------------------------------------------------------------


def reconcile(services: Services, url: str, now: int) -> int:
    """Finish (or, refused by the rules, undo) every table a start left ``starting`` for ``STALE_MS``;
    returns how many it finished or undid. Synchronous: serve's client. A Redis error goes up (the next
    pass tries again); a table whose record cannot be read is logged and left."""
    client = services.redis
    done = 0
    for raw_id in client.zrangebyscore(STARTING, "-inf", now - STALE_MS):
        table_id = raw_id.decode()
        raw, seated = client.hgetall(table_key(table_id)), client.lrange(seated_key(table_id), 0, -1)
        if not raw:
            client.zrem(STARTING, table_id)
            continue
        try:
            done += _take_over(services, decoded(table_id, raw, seated), url)
        except TRANSIENT:
            raise
        except Exception as exc:  # a record it cannot read or a game it cannot make: the others go on
            log.warning("table_not_reconciled", table_id=table_id, error=str(exc) or type(exc).__name__)
    return done


LEGACY_SWEPT = keys.TABLES_LEGACY_SWEPT
_REOPEN_LEGACY = """
-- KEYS: the table, OPEN, LIVE; ARGV: the table's id
local f = redis.call('HMGET', KEYS[1], 'status', 'pending_game', 'created_ms', 'game_id')
if f[1] == 'started' and f[4] then
  redis.call('ZADD', KEYS[3], 'NX', f[3] or 0, f[4])
  return 0
end
if f[1] ~= 'starting' or f[2] then return 0 end
redis.call('ZADD', KEYS[2], f[3] or 0, ARGV[1])
redis.call('HSET', KEYS[1], 'status', 'open')
return 1
"""


def sweep_legacy(client: Any) -> int:
    """Once per Redis: tables an older version left ``starting`` (killed between its claim and its game,
    with no game id chosen: nothing to finish) are opened again, and expire in the next pass if they are
    old; returns how many. Its players may leave them again. The games its started tables made (kept 7
    days) join ``LIVE``, so that they too end once their players leave them."""
    if not client.set(LEGACY_SWEPT, 1, nx=True):
        return 0
    reopened = 0
    for key in client.scan_iter(match=keys.table("*"), count=1000):
        parts = key.decode().split(":")
        if len(parts) == 3:  # hm:table:<id>, not its :seated list
            reopened += int(client.eval(_REOPEN_LEGACY, 3, key, OPEN, LIVE, parts[2]))
    if reopened:
        log.info("legacy_tables_reopened", tables=reopened)
    return reopened


def _take_over(services: Services, table: Table, url: str) -> int:
    client, game_id = services.redis, table.pending_game
    if table.status != "starting" or game_id is None:
        client.zrem(STARTING, table.table_id)
        return 0
    try:
        created_ms = _make(services, table, game_id, len(table.seated), url)
    except REFUSED as exc:
        log.info("table_start_undone", table_id=table.table_id, error=str(exc))
        return int(client.eval(*_undo_call(table, game_id)))
    shown = _shown(_names(client, table.seated), table.seated)
    finished = int(client.eval(*_finish_call(table, game_id, table.seated, shown, created_ms)))
    log.info("table_start_finished", table_id=table.table_id, game_id=game_id, finished=bool(finished))
    return finished


def _names(client: Any, accounts: list[str]) -> list[bytes | None]:
    pipe = client.pipeline(transaction=False)
    for account in accounts:
        pipe.hget(keys.account(account), "name")
    return list(pipe.execute())


def reconcile_tables(services: Services, url: str, now: int) -> None:
    """``serve``'s pass over tables: starts left half-done are finished or undone, open tables past their
    time expire (``tables.expire_open``), and the seats of their games left idle are timed out
    (``table_clock.expire_idle``, once a minute)."""
    sweep_legacy(services.redis)
    finished = reconcile(services, url, now)
    expired = expire_open(services.redis, services.settings.tables, now)
    if finished or expired:
        log.info("tables_reconciled", finished=finished, expired=expired)
    settings = services.settings.tables
    expire_idle(services, settings.idle_hours, now, stand_in=settings.stand_in, url=url)
