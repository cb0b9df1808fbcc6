"""A Swiss round's close alone, offline (issue 42, issue 46 item 4): ``python -m tests.bench round_close``.

What ``swiss_scale`` measures at the end of a 10-minute round, in a minute: for each player count of
``HARBORMASTER_BENCH_CLOSE_PLAYERS`` (default ``2000,10000``), a Manila Swiss tournament at tables of 4 is
created and started on an embedded Redis (which opens round 1's games as ``tournament start`` does), and its
games are ended without being played: each is marked finished with an outcome stored as the fold worker's
tournament hook stores one at a game's end (random scores, at the game's position), and its archive is
written (the game's opening events) and entered as verified, as the archive job does after
``verify`` (which would refuse a game its rules have not ended). A live bot runner is announced, as under
``serve`` and ``swiss_scale`` (the runner plays instant bots' turns, so opening a round enqueues none).

Then the round job's work, timed in its two parts, in this process, under the close's lease:

- **decide** (``close_round_state``): load the tournament (cold: this process's kept fold is dropped, as
  in an rq worker that never folded it), read the round's results in one batch, record the tables, rate,
  close the round, pair round 2 and append;
- **act** (``after_decision``): mark the games recorded, trim the archived ones, open round 2's games
  (create, seats, names) and arm their clocks.

Printed: each part's wall seconds, the CPU seconds this process (all its threads) and Redis spent in it
(steadier than wall time on a loaded machine), the commands Redis ran (a script's own calls included), the
1-minute load average, and what the close found (tables recorded, games trimmed, round 2 opened). No game is played, so this measures
the close, not the games' Redis footprint (``swiss_scale`` does).
"""

from __future__ import annotations

import json
import os
import random
import shutil
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from domain.engine import Outcome
from events import keys
from events import tournament_store as kept_folds
from events.tournament_store import TournamentStore
from services import tournament_service as service
from services.archive import write_archive
from services.bootstrap import build, require_rq
from services.config import Settings
from services.redis_launcher import EmbeddedRedis
from workers.botrunner import RUNNERS_KEY
from workers.jobs.archive_trigger import ARCHIVE_INDEX
from workers.jobs.fan_out import chunks, each
from workers.jobs.ownership import owned
from workers.jobs.round_results import StoredOutcome, keep_outcome
from workers.jobs.tournament import CLOSING_LEASE_MS, _closing_key, after_decision, close_round_state

PLAYERS = [int(n) for n in os.environ.get("HARBORMASTER_BENCH_CLOSE_PLAYERS", "2000,10000").split(",")]
GAME = "manila"


def _outcome(rng: random.Random, seats: int) -> Outcome:
    """A Manila-like end: wealth per seat, ranked by it (ties by seat), the best sharing the win."""
    scores = tuple(rng.randrange(20, 160) for _ in range(seats))
    ranking = tuple(sorted(range(seats), key=lambda s: (-scores[s], s)))
    winners = tuple(s for s in ranking if scores[s] == scores[ranking[0]])
    return Outcome(ranking=ranking, scores=scores, winners=winners)


def _end_games(client: Any, tid: str, games: list[str], tables: list[tuple[int, ...]]) -> None:
    """Each game finished, with its outcome stored at its position (the fold worker's hook's part)."""
    rng = random.Random(42)
    positions = client.pipeline(transaction=False)
    for game_id in games:
        positions.hget(keys.results(game_id), keys.POSITION_FIELD)
    pipe = client.pipeline(transaction=False)
    for game_id, seats, position in zip(games, tables, positions.execute(), strict=True):
        seq, _, chain_hash = position.decode().partition(":")
        kept = StoredOutcome(seq=int(seq), hash=chain_hash, outcome=_outcome(rng, len(seats)))
        keep_outcome(pipe, tid, 1, game_id, kept)
        pipe.hset(keys.meta(game_id), "status", "finished")
        pipe.zrem(keys.LIVE_GAMES, game_id)
    pipe.execute()


def _archive(services: Any, games: list[str], folder: Path) -> None:
    """Each game's archive written (its export) and entered as verified."""

    def write(part: Sequence[str]) -> None:
        for game_id in part:
            entry = write_archive(services.store, game_id, folder)
            services.redis.hset(ARCHIVE_INDEX, game_id, json.dumps(entry | {"verified": True}))

    each(write, chunks(games))


class Part:
    """One part of the close: wall seconds, this process's CPU seconds (all its threads), Redis's CPU
    seconds and the commands Redis ran (a script's own calls included), from before to after the block."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.wall_s = self.cpu_s = self.redis_cpu_s = 0.0
        self.commands = 0

    def _redis(self) -> tuple[float, int]:
        cpu, stats = self.client.info("cpu"), self.client.info("stats")
        return cpu["used_cpu_user"] + cpu["used_cpu_sys"], int(stats["total_commands_processed"])

    def __enter__(self) -> Part:
        self._redis_cpu, self._commands = self._redis()
        self._wall, self._cpu = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *_: object) -> None:
        self.wall_s, self.cpu_s = time.perf_counter() - self._wall, time.process_time() - self._cpu
        redis_cpu, commands = self._redis()
        self.redis_cpu_s, self.commands = redis_cpu - self._redis_cpu, commands - self._commands - 2

    def text(self) -> str:
        return (f"{self.wall_s:.2f} s ({self.cpu_s:.2f} CPU-s here, {self.redis_cpu_s:.2f} in Redis, "
                f"{self.commands:,} Redis commands)")  # fmt: skip


def close_once(players: int) -> None:
    folder = Path(tempfile.mkdtemp(prefix="hm-bench-close"))
    server = EmbeddedRedis(folder / "data")
    url = server.start()
    try:
        services = build(Settings.from_env(), url)
        client = services.redis
        client.zadd(RUNNERS_KEY, {"bench-runner": time.time() + 86_400})  # a live bot runner, as under serve
        spec = service.TournamentSpec(
            game=GAME, rounds=2, table_size=4, players=players, bots=["greedy", "random"]
        )
        tid = service.create(services, spec)
        started = time.perf_counter()
        service.start(services, url, tid)
        opened = time.perf_counter() - started
        state = service.load(services, tid)
        games, tables = list(state.rounds[0].games), list(state.rounds[0].pairing.tables)
        started = time.perf_counter()
        _end_games(client, tid, games, tables)
        _archive(services, games, folder / "archive")
        prepared = time.perf_counter() - started
        kept_folds._FOLDS.clear()  # the rq worker closing round 1 has not folded the tournament
        tournaments = TournamentStore(client)
        load_before = os.getloadavg()[0]
        with owned(client, _closing_key(tid, 1), CLOSING_LEASE_MS, renew=True) as token:
            assert token is not None
            with Part(client) as deciding:
                decided = close_round_state(services.store, tournaments, tid, 1)
            with Part(client) as acting:
                after_decision(
                    services.store, require_rq(services), decided, url, services.bus.partitions, ()
                )
        after = service.load(services, tid)
        trimmed = sum(bool(a) for a in _archive_fields(client, games))
        opened_two = len(after.rounds) == 2 and all(
            s is not None for s in _statuses(client, list(after.rounds[1].games))
        )
        assert after.rounds[0].closed and all(r is not None for r in after.rounds[0].results), "not closed"
        print(f"{GAME}: closing round 1 of a {players:,}-player Swiss ({len(games):,} tables of 4), offline "
              f"(games ended unplayed; round 1 opened in {opened:.1f} s, ended and archived in {prepared:.1f} s)")  # fmt: skip
        print(f"  decide {deciding.text()}: load the tournament cold, read {len(games):,} results, record, "
              f"rate, pair round 2, append")  # fmt: skip
        print(f"  act    {acting.text()}: mark recorded, trim {trimmed:,} of {len(games):,} games, open round "
              f"2's {len(after.rounds[1].games):,} ({'all' if opened_two else 'NOT all'} created)")  # fmt: skip
        print(f"  total  {deciding.wall_s + acting.wall_s:.2f} s, {deciding.cpu_s + acting.cpu_s:.2f} CPU-s here "
              f"and {deciding.redis_cpu_s + acting.redis_cpu_s:.2f} in Redis; 1-minute load average "
              f"{load_before:.1f} before, {os.getloadavg()[0]:.1f} after, on {os.cpu_count()} cores")  # fmt: skip
    finally:
        server.stop()
        shutil.rmtree(folder, ignore_errors=True)


def _archive_fields(client: Any, games: list[str]) -> list[bytes | None]:
    pipe = client.pipeline(transaction=False)
    for game_id in games:
        pipe.hget(keys.meta(game_id), "archive")
    return list(pipe.execute())


def _statuses(client: Any, games: list[str]) -> list[bytes | None]:
    pipe = client.pipeline(transaction=False)
    for game_id in games:
        pipe.hget(keys.meta(game_id), "status")
    return list(pipe.execute())


def main() -> None:
    for players in PLAYERS:
        close_once(players)


if __name__ == "__main__":
    main()
