"""Open tables: a signed-in player opens one for a game with some seats; others take a seat with one click;
the game is made when the last seat is taken (or earlier by its creator, once enough are seated).

- ``hm:table:<id>``: a hash (game, seats, options, rated, creator, address, status, game_id, created_ms;
  while starting, pending_game and claimed_ms: ``services/players/table_start.py``);
- ``hm:table:<id>:seated``: the accounts seated, in order (seat 0 first);
- ``hm:tables:open``: open tables by creation time, for the lobby (which leaves out private ones) and expiry;
- ``hm:tables:of:<account>`` / ``hm:tables:from:<address>``: the open tables an account, and an address,
  opened, which their quotas count (``TableSettings``): every one of them, not only those the lobby lists.

Opening, taking a seat and starting are Lua scripts: twenty opens at once by one account get the quota's
number of tables and refusals; two players clicking the last seat at once get one seat each or a refusal,
never a seventh player at a six-seat table or a game made twice. An open table nobody fills expires
(``open_minutes``): the lobby and a join stop seeing it at once, and ``serve``'s reconciler closes it.
"""

from __future__ import annotations

import secrets
import time
from typing import Any

import msgspec

from events import keys
from services.players.table_settings import TableSettings
from workers.jobs import table_clocks
from workers.jobs.table_clocks import TableClock

NO_CLOCK = table_clocks.PRESETS["none"]

OPEN = keys.TABLES_OPEN
OPEN_LIMIT = 200
"""Open tables the lobby lists."""
LOBBY_READ = 2 * OPEN_LIMIT
"""Open tables the lobby reads to pick ``OPEN_LIMIT`` from, fairly (``_FAIR``)."""
STARTED_TTL_S = 7 * 86_400
CLOSED_TTL_S = 86_400

_COUNT_OPEN = """
local function open_count(set, cutoff, stale)
  local n = 0
  for _, id in ipairs(redis.call('SMEMBERS', set)) do
    local f = redis.call('HMGET', TABLE(id), 'status', 'created_ms')
    if f[1] == 'open' and (tonumber(f[2]) or 0) >= cutoff then n = n + 1 else table.insert(stale, {'SREM', set, id}) end
  end
  return n
end
""".replace("TABLE(id)", keys.lua_key(keys.table, "id"))
COUNT_GAMES = """
local function live_games(zset, floor, stale)
  local n = 0
  local listed = redis.call('ZRANGE', zset, 0, -1, 'WITHSCORES')
  for i = 1, #listed, 2 do
    local status = redis.call('HGET', META(listed[i]), 'status')
    if status == 'live' or (not status and tonumber(listed[i + 1]) >= floor) then n = n + 1
    else table.insert(stale, {'ZREM', zset, listed[i]}) end
  end
  return n
end
local function prune(stale)
  for _, call in ipairs(stale) do redis.call(unpack(call)) end
end
""".replace("META(listed[i])", keys.lua_key(keys.meta, "listed[i]"))
"""A game counts while live, or while its table is starting (no meta yet: claimed after ``floor``). What
no longer counts is pruned after the script's first write: Redis refuses a script at its memory limit only
if that first write is one that takes memory (``HSET``), and lets all that follow through."""
_OPEN = (
    _COUNT_OPEN
    + COUNT_GAMES
    + """
-- KEYS: table, seated, OPEN, the account's open tables, the address's, the account's games, the address's
-- ARGV: table id, now, cutoff, open/account, open/address, games/account, games/address, floor, creator,
--       then the table's fields and values
local stale = {}
local refused = 0
if open_count(KEYS[4], tonumber(ARGV[3]), stale) >= tonumber(ARGV[4]) then refused = -1
elseif open_count(KEYS[5], tonumber(ARGV[3]), stale) >= tonumber(ARGV[5]) then refused = -2
elseif live_games(KEYS[6], tonumber(ARGV[8]), stale) >= tonumber(ARGV[6]) then refused = -3
elseif live_games(KEYS[7], tonumber(ARGV[8]), stale) >= tonumber(ARGV[7]) then refused = -4 end
if refused == 0 then
  redis.call('HSET', KEYS[1], unpack(ARGV, 10))
  redis.call('RPUSH', KEYS[2], ARGV[9])
  redis.call('ZADD', KEYS[3], ARGV[2], ARGV[1])
  redis.call('SADD', KEYS[4], ARGV[1])
  redis.call('SADD', KEYS[5], ARGV[1])
  refused = 1
end
prune(stale)
return refused
"""
)
_JOIN = """
local f = redis.call('HMGET', KEYS[1], 'status', 'created_ms', 'humans')
if f[1] ~= 'open' or (tonumber(f[2]) or 0) < tonumber(ARGV[2]) then return -1 end
local seated = redis.call('LRANGE', KEYS[2], 0, -1)
for _, who in ipairs(seated) do if who == ARGV[1] then return -2 end end
if #seated >= (tonumber(f[3]) or 0) then return -3 end
return redis.call('RPUSH', KEYS[2], ARGV[1])
"""
_LEAVE = """
if redis.call('HGET', KEYS[1], 'status') ~= 'open' then return -1 end
return redis.call('LREM', KEYS[2], 0, ARGV[1])
"""
_CLOSE = """
-- KEYS: table, seated, OPEN, the account's open tables, the address's; ARGV: table id, new status, ttl
if redis.call('HGET', KEYS[1], 'status') ~= 'open' then return 0 end
redis.call('HSET', KEYS[1], 'status', ARGV[2])
redis.call('ZREM', KEYS[3], ARGV[1])
redis.call('SREM', KEYS[4], ARGV[1])
redis.call('SREM', KEYS[5], ARGV[1])
redis.call('EXPIRE', KEYS[1], ARGV[3])
redis.call('EXPIRE', KEYS[2], ARGV[3])
return 1
"""


class TableError(Exception):
    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


class Table(msgspec.Struct, kw_only=True):
    """A table as the lobby shows it."""

    table_id: str
    game: str
    seats: int
    options: dict[str, Any]
    rated: bool
    creator: str
    seated: list[str]
    """Accounts by seat, in the order they sat down."""
    bots: list[str]
    """Bots of the last seats, after the accounts."""
    status: str
    """``open``, ``starting``, ``started`` (then ``game_id`` is its game), ``cancelled`` or ``expired``."""
    game_id: str | None = None
    created_ms: int = 0
    address: str = "unknown"
    """Where it was opened from (never shown: the address's quotas count it)."""
    pending_game: str | None = None
    """While ``starting``: the id its game is made with (``table_start.py``)."""
    claimed_ms: int = 0
    clock: TableClock = NO_CLOCK
    """Its game's clock (``workers/jobs/table_clocks.py``); a table opened before clocks has none."""
    private: bool = False
    """Not listed in the lobby (``_FAIR`` skips it): reached by its invite link alone."""


def table_key(table_id: str) -> str:
    return keys.table(table_id)


def seated_key(table_id: str) -> str:
    return f"{table_key(table_id)}:seated"


def account_tables_key(account: str) -> str:
    return keys.account_tables(account)


def address_tables_key(address: str) -> str:
    return keys.address_tables(address)


def account_made_key(account: str) -> str:
    """The live games an account's tables made (a sorted set: game id by when it was claimed)."""
    return keys.account_made(account)


def address_made_key(address: str) -> str:
    return keys.address_made(address)


PENDING_FLOOR_MS = 600_000
"""A claimed game with no meta counts toward the quotas this long: the reconciler makes it within seconds,
so one still missing after this was trimmed or deleted by hand, and must not hold a quota for ever."""


def now_ms() -> int:
    return int(time.time() * 1000)


def cutoff_ms(settings: TableSettings, now: int) -> int:
    """Tables opened before this are expired."""
    return now - settings.open_minutes * 60_000


async def open_table(
    redis: Any,
    settings: TableSettings,
    spec: tuple[str, int, dict[str, Any], bool, list[str]],
    creator: str,
    address: str,
    clock: TableClock = NO_CLOCK,
    private: bool = False,
) -> str:
    """A new open table (``spec``: game, seats, options, rated, bots; ``clock``: its game's) with its
    creator in seat 0 and the bots
    in the last seats, within the creator's and the address's quotas (``TableError`` 409 beyond); the
    caller checked game, seats, options and that a seat is left for someone else."""
    game, seats, options, rated, bots = spec
    table_id = secrets.token_hex(6)
    now = now_ms()
    fields: dict[str, Any] = {
        "game": game, "seats": seats, "humans": seats - len(bots), "bots": msgspec.json.encode(bots),
        "options": msgspec.json.encode(options), "rated": int(rated), "creator": creator,
        "address": address[:64], "status": "open", "created_ms": now, "clock": table_clocks.encode(clock),
        "private": int(private),
    }  # fmt: skip
    done = int(
        await redis.eval(
            _OPEN, 7, table_key(table_id), seated_key(table_id), OPEN, account_tables_key(creator),
            address_tables_key(address), account_made_key(creator), address_made_key(address),
            table_id, now, cutoff_ms(settings, now), settings.open_per_account, settings.open_per_address,
            settings.games_per_account, settings.games_per_address, now - PENDING_FLOOR_MS, creator,
            *[part for item in fields.items() for part in item],
        )
    )  # fmt: skip
    if done < 0:
        raise _quota_refusal(done, settings)
    return table_id


def _quota_refusal(code: int, settings: TableSettings) -> TableError:
    if code == -1:
        return TableError(
            409, "too_many_tables", f"at most {settings.open_per_account} open tables of yours wait at once"
        )
    if code == -2:
        return TableError(
            409, "too_many_tables", f"at most {settings.open_per_address} open tables from one address"
        )
    limit = settings.games_per_account if code == -3 else settings.games_per_address
    whose = "your tables" if code == -3 else "tables from one address"
    return TableError(409, "too_many_games", f"{whose} have {limit} live games already; finish one first")


async def load(redis: Any, table_id: str) -> Table | None:
    if len(table_id) > 32:
        return None
    pipe = redis.pipeline(transaction=False)
    pipe.hgetall(table_key(table_id))
    pipe.lrange(seated_key(table_id), 0, -1)
    raw, seated = await pipe.execute()
    return readable(table_id, raw, seated) if raw else None


def readable(table_id: str, raw: dict[bytes, bytes], seated: list[bytes]) -> Table | None:
    """``decoded``, or None for a record that is not a table's (changed by hand, or by a bug): one such
    record must not fail the lobby for everyone, nor the table's own page (it answers 404)."""
    try:
        return decoded(table_id, raw, seated)
    except (KeyError, ValueError, UnicodeDecodeError, msgspec.DecodeError, msgspec.ValidationError):
        return None


def decoded(table_id: str, raw: dict[bytes, bytes], seated: list[bytes]) -> Table:
    field = {k.decode(): v.decode() for k, v in raw.items()}
    return Table(
        table_id=table_id,
        game=field["game"],
        seats=int(field["seats"]),
        options=msgspec.json.decode(field.get("options", "{}")),
        rated=field.get("rated") == "1",
        creator=field["creator"],
        seated=[s.decode() for s in seated],
        bots=msgspec.json.decode(field.get("bots", "[]"), type=list[str]),
        status=field["status"],
        game_id=field.get("game_id") or None,
        created_ms=int(field.get("created_ms", 0)),
        address=field.get("address", "unknown"),
        pending_game=field.get("pending_game") or None,
        claimed_ms=int(field.get("claimed_ms", 0)),
        clock=table_clocks.decode(field.get("clock")) or NO_CLOCK,
        private=field.get("private") == "1",
    )


_FAIR = """
-- KEYS: OPEN; ARGV: how many to read, how many to list, cutoff (ms). Newest first, one creator's tables
-- after every other creator's newer ones: each creator's newest, then each one's second, and so on.
local rounds = {}
local rank = {}
for _, id in ipairs(redis.call('ZREVRANGE', KEYS[1], 0, tonumber(ARGV[1]) - 1)) do
  local f = redis.call('HMGET', TABLE(id), 'creator', 'status', 'created_ms', 'private')
  if f[1] and f[2] == 'open' and (tonumber(f[3]) or 0) >= tonumber(ARGV[3]) and f[4] ~= '1' then
    local r = (rank[f[1]] or 0) + 1
    rank[f[1]] = r
    if rounds[r] == nil then rounds[r] = {} end
    table.insert(rounds[r], id)
  end
end
local out = {}
for r = 1, #rounds do
  for _, id in ipairs(rounds[r]) do
    if #out >= tonumber(ARGV[2]) then return out end
    table.insert(out, id)
  end
end
return out
""".replace("TABLE(id)", keys.lua_key(keys.table, "id"))


async def open_tables(redis: Any, settings: TableSettings) -> list[Table]:
    """The open tables the lobby lists: at most ``OPEN_LIMIT`` of the newest ``LOBBY_READ``, fairly among
    their creators (``_FAIR``, chosen in Redis: reading twice as many tables back here doubled the cost
    of the lobby's every poll), so that forty accounts opening five tables each cannot push everybody
    else's out of the lobby's page."""
    cutoff = cutoff_ms(settings, now_ms())
    ids = [i.decode() for i in await redis.eval(_FAIR, 1, OPEN, LOBBY_READ, OPEN_LIMIT, cutoff)]
    pipe = redis.pipeline(transaction=False)  # one round trip for them all: the lobby asks every 3 s
    for table_id in ids:
        pipe.hgetall(table_key(table_id))
        pipe.lrange(seated_key(table_id), 0, -1)
    replies = await pipe.execute()
    tables = [
        readable(table_id, raw, seated)
        for table_id, raw, seated in zip(ids, replies[::2], replies[1::2], strict=True)
        if raw
    ]
    return [t for t in tables if t is not None and t.status == "open"]


async def join(redis: Any, settings: TableSettings, table_id: str, account: str) -> int:
    """Seat ``account``; returns how many are seated now."""
    cutoff = cutoff_ms(settings, now_ms())
    seated = int(await redis.eval(_JOIN, 2, table_key(table_id), seated_key(table_id), account, cutoff))
    if seated == -1:
        raise TableError(409, "table_closed", "this table is no longer open")
    if seated == -2:
        raise TableError(409, "already_seated", "you sit at this table already")
    if seated == -3:
        raise TableError(409, "table_full", "every seat of this table is taken")
    return seated


async def leave(redis: Any, table_id: str, account: str) -> None:
    if int(await redis.eval(_LEAVE, 2, table_key(table_id), seated_key(table_id), account)) == -1:
        raise TableError(409, "table_closed", "this table is no longer open")


def close_call(table: Table, status: str) -> list[Any]:
    """The arguments of ``EVAL`` closing an open ``table`` as ``status`` (``cancelled``, ``expired``)."""
    return [
        _CLOSE, 5, table_key(table.table_id), seated_key(table.table_id), OPEN,
        account_tables_key(table.creator), address_tables_key(table.address), table.table_id, status,
        CLOSED_TTL_S,
    ]  # fmt: skip


async def cancel(redis: Any, table: Table) -> None:
    """Close an open table without a game (its creator's call; the caller checked)."""
    if not int(await redis.eval(*close_call(table, "cancelled"))):
        raise TableError(409, "table_closed", "this table is no longer open")


def expire_open(client: Any, settings: TableSettings, now: int) -> int:
    """``serve``'s reconciler: close (``expired``) every open table older than ``open_minutes``; returns how
    many it closed. Synchronous: the reconciler's client."""
    stale = [i.decode() for i in client.zrangebyscore(OPEN, "-inf", cutoff_ms(settings, now) - 1)]
    closed = 0
    for table_id in stale:
        raw = client.hgetall(table_key(table_id))
        if not raw:  # deleted by hand: only the lobby's entry is left
            client.zrem(OPEN, table_id)
            continue
        table = readable(table_id, raw, [])
        if table is None:  # not a table's record: only the lobby's entry is ours to drop
            client.zrem(OPEN, table_id)
            continue
        closed += int(client.eval(*close_call(table, "expired")))
    return closed
