"""What a command costs Redis under layouts of the append, at the steady traffic's shape (one command for each
of a batch's 33 games): the project's (``events/lua/append.lua``, each game's keys under its own hash tag,
one script call a game) and one it does not use, kept here only to measure it: the games' positions and
command ids in a shared hash (``SHARED_INDEX_LUA``), one call for the games that share it.

A shared hash needs its games in one hash slot, which the design brief does not allow (a tag per game:
docs/design-brief.md). With a tag per inbox partition, a batch of a worker that holds all 16 partitions makes
a call a partition (about two commands a call at this traffic); with one tag for everything, a call a batch
(no Cluster could spread it).
The figures are for the project to weigh that (README, *Decisions*). Every script makes the same checks:
the position (sequence and chain hash) the command was decided on, and its command id.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Any

import redis

from events.keys import partition_for
from events.store import APPEND_LUA, append_keys
from services.redis_launcher import EmbeddedRedis
from tests.bench.load_generator import redis_cpu_seconds

GAMES = 200
BATCH = 33
BATCHES = 1500
ENVELOPE = b"e" * 300
RECORD = b"r" * 150
PARTITIONS = 16
SHARED_INDEX = "hm:{all}:index"
LAYOUTS = ("per game", "shared index, a call a partition", "shared index, a call a batch")

SHARED_INDEX_LUA = """
-- KEYS[1] = the shared index hash; KEYS[1 + i] = game i's event stream.
-- ARGV, 6 a game: game id, command id, expected seq, chain hash at it, record, envelope (one event).
local n = #KEYS - 1
local lookup = {}
for i = 1, n do
  local b = (i - 1) * 6
  lookup[2 * i - 1] = ARGV[b + 1] .. '@position'
  lookup[2 * i] = ARGV[b + 1] .. ':' .. ARGV[b + 2]
end
local found = redis.call('HMGET', KEYS[1], unpack(lookup))
local t = redis.call('TIME')
local clock = tostring(t[1] * 1000 + math.floor(t[2] / 1000))
local writes, w, replies = {}, 0, {}
for i = 1, n do
  local b = (i - 1) * 6
  local expected = tonumber(ARGV[b + 3])
  if found[2 * i] then
    replies[i] = {'dup', found[2 * i]}
  elseif found[2 * i - 1] ~= (expected .. ':' .. ARGV[b + 4]) then
    replies[i] = {'conflict'}
  else
    redis.call('XADD', KEYS[1 + i], (expected + 1) .. '-0', 'e', ARGV[b + 6], 'r', ARGV[b + 5], 't', clock)
    writes[w + 1], writes[w + 2] = lookup[2 * i - 1], (expected + 1) .. ':' .. ARGV[b + 4]
    writes[w + 3], writes[w + 4], w = lookup[2 * i], ARGV[b + 5], w + 4
    replies[i] = {'ok', expected + 1, expected + 1}
  end
end
if w > 0 then redis.call('HSET', KEYS[1], unpack(writes)) end
return replies
"""


def _game_keys(game: int) -> tuple[str, str, str, str]:
    return append_keys(f"b{game}")


def per_game_calls(sha: str, games: list[int], seqs: list[int], first_command: int) -> list[tuple[Any, ...]]:
    """The project's layout: one append script call for each game's command."""
    return [
        ("EVALSHA", sha, 4, *_game_keys(game), "append", f"c{first_command + n}", seqs[game], "h", RECORD, "h",
         0, 1, ENVELOPE)
        for n, game in enumerate(games)
    ]  # fmt: skip


def partition_index(game: int) -> str:
    """The shared hash of the games of ``game``'s inbox partition."""
    return f"hm:{{p:{partition_for(f'b{game}', PARTITIONS)}}}:index"


def shared_index_call(
    sha: str, games: list[int], seqs: list[int], first_command: int, index: str = SHARED_INDEX
) -> tuple[Any, ...]:
    """The other layout: one call for ``games``, whose positions and command ids are in ``index``."""
    keys = [index, *(_game_keys(game)[0] for game in games)]
    args: list[Any] = []
    for n, game in enumerate(games):
        args += [f"b{game}", f"c{first_command + n}", seqs[game], "h", RECORD, ENVELOPE]
    return ("EVALSHA", sha, len(keys), *keys, *args)


def _set_up(client: redis.Redis) -> None:
    client.flushdb()
    for game in range(GAMES):
        client.hset(_game_keys(game)[1], "@position", "0:h")
        client.hset(SHARED_INDEX, f"b{game}@position", "0:h")
        client.hset(partition_index(game), f"b{game}@position", "0:h")


def redis_cpu_a_command(client: redis.Redis, layout: str) -> float:
    """Redis's CPU (µs) a command over ``BATCHES`` batches of ``BATCH`` games with one command each."""
    _set_up(client)
    sha = client.script_load(APPEND_LUA if layout == "per game" else SHARED_INDEX_LUA)
    seqs, sent = [0] * GAMES, 0
    started = redis_cpu_seconds(client)
    for batch in range(BATCHES):
        games = [(batch * BATCH + n) % GAMES for n in range(BATCH)]
        calls = _calls(layout, sha, games, seqs, sent)
        pipe = client.pipeline(transaction=False)
        for call in calls:
            pipe.execute_command(*call)
        statuses = [result[0] for reply in pipe.execute() for result in reply]
        assert statuses == [b"ok"] * len(games), statuses[:3]
        for game in games:
            seqs[game] += 1
        sent += len(games)
    return (redis_cpu_seconds(client) - started) / sent * 1e6


def _calls(layout: str, sha: str, games: list[int], seqs: list[int], sent: int) -> list[tuple[Any, ...]]:
    if layout == "per game":
        return per_game_calls(sha, games, seqs, sent)
    if layout == "shared index, a call a batch":
        return [shared_index_call(sha, games, seqs, sent)]
    by_index: dict[str, list[int]] = {}
    for game in games:
        by_index.setdefault(partition_index(game), []).append(game)
    calls, first = [], sent
    for index, together in by_index.items():
        calls.append(shared_index_call(sha, together, seqs, first, index))
        first += len(together)
    return calls


def main() -> None:
    server = EmbeddedRedis(Path(tempfile.mkdtemp(prefix="hm-bench-layouts-")))
    client = redis.Redis.from_url(server.start())
    try:
        for attempt in range(1, 4):
            figures = [f"{layout} {redis_cpu_a_command(client, layout):.1f} us" for layout in LAYOUTS]
            print(f"Redis CPU a command, {BATCH} games a batch with one command each, run {attempt}: "
                  + "; ".join(figures) + " (only the first is the project's)")  # fmt: skip
            time.sleep(0.5)
    finally:
        client.close()
        server.stop()
