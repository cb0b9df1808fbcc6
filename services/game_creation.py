"""A game made by ``POST /api/games`` is whole or not at all (issue 43, finding 10: a gateway killed between
making a game and storing its seat tokens left a game nobody held a token for, live for ever; and the
store listed every new game in a step after its script, which a kill could skip).

Making one is four steps:

1. **make** (``EventStore.create`` with a hold): the id goes in ``keys.CREATING``, then the game is set up
   in one script, its meta marked ``creating=<mark>``, a secret of this creator's;
2. **finish** (``finish``, one script in the game's slot): the seats' token digests, their names and the
   spectators' delay written and the mark removed together, only while the mark is still this creator's;
3. **list** (``EventStore.list_created``): in the game lists and out of ``CREATING``, one round trip;
4. its bots set going. Only then are the tokens shown (201).

A creator killed before 2 left a game whose tokens nobody was ever shown: ``serve``'s reconciler
(``reconcile``) **undoes** it once its entry is ``STALE_MS`` old, deleting the game's keys under the same
check of the mark; a creator that was only slow then finds its mark gone and answers 503 (nothing made)
rather than hand out tokens of a game that is not there. A creator killed after 2 left a whole game: the
reconciler **lists** it, and the bot reconciler (which goes over the listed live games) sets its bots going.
Games made without a hold (tables, tournaments, the command line, demo games) have nothing to undo: if their
creator died before listing them, they are listed the same way.
"""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import structlog

from events import codec, keys, seat_names
from services.bootstrap import Services
from services.games import kick_bots
from services.gateway.access.auth import digest, tokens_key
from services.gateway.feeds.fanout import spectating_key
from workers.jobs.failures import TRANSIENT

log = structlog.get_logger("games")

STALE_MS = 10_000
"""An entry older than this was left by a creator that died (a creation takes milliseconds)."""
GRACE_MS = 3_600_000
"""An entry with no game yet is dropped only this late: a creator paused before its script may still make it."""

_FINISH = """
-- KEYS: the game's meta, its tokens, its spectating hash; ARGV: the mark, names (JSON or ''), delay (s),
--       then token digest / seat pairs
if redis.call('HGET', KEYS[1], 'creating') ~= ARGV[1] then return 0 end
if #ARGV > 3 then redis.call('HSET', KEYS[2], unpack(ARGV, 4)) end  -- the first write takes the memory
if ARGV[2] ~= '' then redis.call('HSET', KEYS[3], 'names', ARGV[2]) end  -- seat_names.FIELD
if tonumber(ARGV[3]) > 0 then redis.call('HSET', KEYS[3], 'delay_s', ARGV[3]) end
redis.call('HDEL', KEYS[1], 'creating')
return 1
"""
_UNDO = """
-- KEYS: the game's meta, then every other key it may have; ARGV: the mark
if redis.call('HGET', KEYS[1], 'creating') ~= ARGV[1] then return 0 end
redis.call('DEL', unpack(KEYS))
return 1
"""
_DROP = """
-- KEYS: CREATING; ARGV: game id, the score its entry was read with (a new creation of that id keeps its own)
if tonumber(redis.call('ZSCORE', KEYS[1], ARGV[1])) == tonumber(ARGV[2]) then
  return redis.call('ZREM', KEYS[1], ARGV[1])
end
return 0
"""

Hook = Callable[[str], Awaitable[None]]
between_steps: Hook | None = None
"""Tests only: awaited by the gateway with the step just done (``made``, ``finished``), to pause or kill it
there deterministically."""


def new_mark() -> str:
    return secrets.token_hex(8)


async def step(name: str) -> None:
    if between_steps is not None:
        await between_steps(name)


async def finish(
    redis: Any, game_id: str, mark: str, tokens: Mapping[int, str], chosen: list[str], delay_s: float
) -> bool:
    """Step 2: whether the game is now whole (``False``: the reconciler undid it meanwhile)."""
    shown = seat_names.encoded(chosen).decode() if any(chosen) else ""
    pairs = [part for seat, token in tokens.items() for part in (digest(token), seat)]
    game_keys = (keys.meta(game_id), tokens_key(game_id), spectating_key(game_id))
    return bool(await redis.eval(_FINISH, 3, *game_keys, mark, shown, repr(float(max(0.0, delay_s))), *pairs))


def publish(services: Services, game_id: str, created_ms: int, bots: bool, url: str | None) -> None:
    """Steps 3 and 4 (synchronous: serve's and the gateway's thread)."""
    services.store.list_created(game_id, created_ms)
    if bots and url:
        kick_bots(services, game_id, url)


# --- serve's reconciler ---------------------------------------------------------------------------------


def reconcile(client: Any, now: int) -> int:
    """Undo or list every creation left in ``CREATING`` for ``STALE_MS``; returns how many. A Redis error
    goes up (the next pass tries again); an entry it cannot settle is logged and left."""
    done = 0
    for raw_id, score in client.zrangebyscore(keys.CREATING, "-inf", now - STALE_MS, withscores=True):
        game_id = raw_id.decode(errors="replace")
        try:
            done += _settle(client, game_id, int(score), now)
        except TRANSIENT:
            raise
        except Exception as exc:  # a record it cannot read: the others go on
            log.warning("game_creation_not_reconciled", game_id=game_id, error=str(exc) or type(exc).__name__)
    return done


def _settle(client: Any, game_id: str, began: int, now: int) -> int:
    header, status, mark = client.hmget(keys.meta(game_id), "header", "status", "creating")
    if header is None:  # not made (yet, or ever): nothing to undo
        if began > now - GRACE_MS:
            return 0
        return _drop(client, game_id, began)
    if mark is not None:
        undone = int(client.eval(_UNDO, len(_game_keys(game_id)), *_game_keys(game_id), mark))
        log.info("game_creation_undone", game_id=game_id, undone=bool(undone))
        return _drop(client, game_id, began) if undone else 0
    created_ms = codec.decode_header(header).created_ms
    _list(client, game_id, created_ms, status)
    log.info("game_creation_listed", game_id=game_id)
    return _drop(client, game_id, began)


def _list(client: Any, game_id: str, created_ms: int, status: bytes | None) -> None:
    """A made game in the game lists, never again in the live one once finished: added only if it was live,
    and taken out again if it ended meanwhile (the fold worker's removal may have come before this add)."""
    client.zadd(keys.GAMES_INDEX, {game_id: created_ms}, nx=True)
    if status not in (None, b"live"):
        return
    client.zadd(keys.LIVE_GAMES, {game_id: created_ms}, nx=True)
    if client.hget(keys.meta(game_id), "status") not in (None, b"live"):
        client.zrem(keys.LIVE_GAMES, game_id)


def _drop(client: Any, game_id: str, began: int) -> int:
    return int(client.eval(_DROP, 1, keys.CREATING, game_id, began))


def _game_keys(game_id: str) -> list[str]:
    """Every key a game can have before it is listed, the meta first (the undo script reads it)."""
    return [
        keys.meta(game_id),
        keys.events(game_id),
        keys.results(game_id),
        keys.commands(game_id),
        keys.snapshot(game_id),
        keys.chat(game_id),
        tokens_key(game_id),
        spectating_key(game_id),
    ]
