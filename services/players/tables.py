"""Open tables: a signed-in player opens one for a game with some seats; others take a seat with one click;
the game is made when the last seat is taken (or earlier by its creator, once enough are seated).

- ``hm:table:<id>``: a hash (game, seats, options, rated, creator, status, game_id, created_ms);
- ``hm:table:<id>:seated``: the accounts seated, in order (seat 0 first);
- ``hm:tables:open``: open tables by creation time, for the lobby.

Taking a seat and starting are Lua scripts: two players clicking the last seat at once get one seat each or
a refusal, never a seventh player at a six-seat table or a game made twice.
"""

from __future__ import annotations

import secrets
import time
from typing import Any

import msgspec
from starlette.concurrency import run_in_threadpool

from services.bootstrap import Services
from services.games import create_game
from workers.jobs.account_ratings import account_games_key, seat_accounts_key

OPEN = "hm:tables:open"
OPEN_LIMIT = 200
"""Open tables the lobby lists (newest first)."""

_JOIN = """
if redis.call('HGET', KEYS[1], 'status') ~= 'open' then return -1 end
local seated = redis.call('LRANGE', KEYS[2], 0, -1)
for _, who in ipairs(seated) do if who == ARGV[1] then return -2 end end
local seats = tonumber(redis.call('HGET', KEYS[1], 'humans'))
if #seated >= seats then return -3 end
return redis.call('RPUSH', KEYS[2], ARGV[1])
"""
_LEAVE = """
if redis.call('HGET', KEYS[1], 'status') ~= 'open' then return -1 end
return redis.call('LREM', KEYS[2], 0, ARGV[1])
"""
_CANCEL = """
if redis.call('HGET', KEYS[1], 'status') ~= 'open' then return 0 end
redis.call('HSET', KEYS[1], 'status', 'cancelled')
redis.call('ZREM', KEYS[2], ARGV[1])
return 1
"""
_CLAIM_START = """
if redis.call('HGET', KEYS[1], 'status') ~= 'open' then return 0 end
redis.call('HSET', KEYS[1], 'status', 'starting')
redis.call('ZREM', KEYS[3], ARGV[1])
return redis.call('LRANGE', KEYS[2], 0, -1)
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
    """``open``, ``starting``, ``started`` (then ``game_id`` is its game) or ``cancelled``."""
    game_id: str | None = None
    created_ms: int = 0


def table_key(table_id: str) -> str:
    return f"hm:table:{table_id}"


def seated_key(table_id: str) -> str:
    return f"{table_key(table_id)}:seated"


async def open_table(
    redis: Any, game: str, seats: int, options: dict[str, Any], rated: bool, creator: str, bots: list[str]
) -> str:
    """A new open table with its creator in seat 0 and ``bots`` in the last seats; the caller checked game,
    seats, options and that a seat is left for someone else."""
    table_id = secrets.token_hex(6)
    now = int(time.time() * 1000)
    pipe = redis.pipeline(transaction=True)
    pipe.hset(
        table_key(table_id),
        mapping={
            "game": game,
            "seats": seats,
            "humans": seats - len(bots),
            "bots": msgspec.json.encode(bots),
            "options": msgspec.json.encode(options),
            "rated": int(rated),
            "creator": creator,
            "status": "open",
            "created_ms": now,
        },
    )
    pipe.rpush(seated_key(table_id), creator)
    pipe.zadd(OPEN, {table_id: now})
    await pipe.execute()
    return table_id


async def load(redis: Any, table_id: str) -> Table | None:
    if len(table_id) > 32:
        return None
    pipe = redis.pipeline(transaction=False)
    pipe.hgetall(table_key(table_id))
    pipe.lrange(seated_key(table_id), 0, -1)
    raw, seated = await pipe.execute()
    return _decoded(table_id, raw, seated) if raw else None


def _decoded(table_id: str, raw: dict[bytes, bytes], seated: list[bytes]) -> Table:
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
    )


async def open_tables(redis: Any) -> list[Table]:
    """The open tables, newest first."""
    ids = [i.decode() for i in await redis.zrevrange(OPEN, 0, OPEN_LIMIT - 1)]
    pipe = redis.pipeline(transaction=False)  # one round trip for them all: the lobby asks every 3 s
    for table_id in ids:
        pipe.hgetall(table_key(table_id))
        pipe.lrange(seated_key(table_id), 0, -1)
    replies = await pipe.execute()
    tables = [
        _decoded(table_id, raw, seated)
        for table_id, raw, seated in zip(ids, replies[::2], replies[1::2], strict=True)
        if raw
    ]
    return [t for t in tables if t.status == "open"]


async def join(redis: Any, table_id: str, account: str) -> int:
    """Seat ``account``; returns how many are seated now."""
    seated = int(await redis.eval(_JOIN, 2, table_key(table_id), seated_key(table_id), account))
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


async def cancel(redis: Any, table_id: str) -> None:
    """Close an open table without a game (its creator's call; the caller checked)."""
    if not int(await redis.eval(_CANCEL, 2, table_key(table_id), OPEN, table_id)):
        raise TableError(409, "table_closed", "this table is no longer open")
    await redis.expire(table_key(table_id), 86_400)
    await redis.expire(seated_key(table_id), 86_400)


async def start(services: Services, redis: Any, table: Table, redis_url: str) -> str:
    """Make the table's game with the seated accounts (only one caller gets to; the others are refused)."""
    claimed = await redis.eval(
        _CLAIM_START, 3, table_key(table.table_id), seated_key(table.table_id), OPEN, table.table_id
    )
    if not claimed:
        raise TableError(409, "table_closed", "this table's game is made already")
    accounts = [a.decode() for a in claimed]
    bots = {len(accounts) + i: bot for i, bot in enumerate(table.bots)}
    try:
        game_id, meta = await run_in_threadpool(
            create_game, services, table.game, len(accounts) + len(bots), table.options, bots=bots,
            redis_url=redis_url,
        )  # fmt: skip
    except BaseException:  # nothing was made (a refused set-up, Redis gone): the table is open again
        await redis.hset(table_key(table.table_id), "status", "open")
        await redis.zadd(OPEN, {table.table_id: table.created_ms})
        raise
    await seat_accounts(redis, game_id, accounts, table.rated, meta.header.created_ms)
    await redis.hset(table_key(table.table_id), mapping={"status": "started", "game_id": game_id})
    await redis.expire(table_key(table.table_id), 7 * 86_400)
    await redis.expire(seated_key(table.table_id), 7 * 86_400)
    return game_id


async def seat_accounts(redis: Any, game_id: str, accounts: list[str], rated: bool, created_ms: int) -> None:
    """Record which account holds which seat (both ways), and the game in each account's list."""
    mapping: dict[str, str | int] = {"rated": int(rated)}
    for seat, account in enumerate(accounts):
        mapping[f"s:{seat}"] = account
        mapping[f"a:{account}"] = seat
    pipe = redis.pipeline(transaction=False)
    pipe.hset(seat_accounts_key(game_id), mapping=mapping)
    for account in accounts:
        pipe.zadd(account_games_key(account), {game_id: created_ms})
    await pipe.execute()
