"""A 10,000-player Swiss round (issue 42): its wall time, its pairing and its close, memory and load
(``python -m tests.bench swiss_scale``; part of ``make bench``; 10-15 minutes on this 2-core machine).

One Swiss tournament of ``HARBORMASTER_BENCH_SWISS_PLAYERS`` (default 10,000) bot players, greedy and random
in turn, at tables of 4 (Manila by default, ``HARBORMASTER_BENCH_SWISS_GAME=eic`` for East India Companies),
through the service's own path as ``harbormaster tournament run`` takes it: an embedded Redis, one fold
worker and two ``rq-worker --no-fork`` (each with its bot runner), the tournament created and started from
this process (which opens round 1's games, as the CLI does). Two rounds are set, so the rq round job of round
1 does all a round's close does: read every table's result (stored by the fold worker's hook), record them,
rate, pair round 2 and open its games. Round 2 is not played: the bench stops there.

Printed: the round from the start command to round 2 opened, in parts (round 1 opened, played until its last
game ended, the round job queued and run: the round's close); the pairing of round 2 and the recording of
round 1's tables (``record_tables``) timed again in this process on the tournament's own events (and checked
to give the very round 2 recorded); a cold fold of the tournament; what a GET of it builds; Redis
``used_memory`` growth and ``used_memory_peak``, each process's peak resident memory (``VmHWM``), both per
player and per table; the 1-minute load average while the round ran.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from rq.job import Job

from domain.tournament import RoundPaired, State, TableFinished, TournamentEvent, fold
from domain.tournament import rules as tournament_rules
from events import keys
from events.tournament_store import TournamentStore, decode
from services import tournament_service as service
from services.bootstrap import build
from services.config import Settings
from services.redis_launcher import EmbeddedRedis
from tests.bench.tournament_flight import _spawn, _wait, peak_rss_mb
from workers.jobs.tournament import game_statuses, round_job_id
from workers.metrics import METRICS_KEY

PLAYERS = int(os.environ.get("HARBORMASTER_BENCH_SWISS_PLAYERS", "10000"))
GAME = os.environ.get("HARBORMASTER_BENCH_SWISS_GAME", "manila")
POLL_S = 1.0


class Watch:
    """What the bench samples while the round runs: the load average and Redis's memory."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.loads: list[float] = []
        self.used_peak = 0

    def sample(self) -> None:
        self.loads.append(os.getloadavg()[0])
        self.used_peak = max(self.used_peak, int(self.client.info("memory")["used_memory"]))

    def load_text(self) -> str:
        loads = sorted(self.loads) or [os.getloadavg()[0]]
        return f"{loads[0]:.1f}-{loads[-1]:.1f} (median {loads[len(loads) // 2]:.1f})"


def _all_finished(services: Any, state: State) -> bool:
    games = state.rounds[0].games
    return all(s == b"finished" for s in game_statuses(services.store, games).values())


def _round_two_open(services: Any, tid: str) -> bool:
    state = service.load(services, tid)
    if len(state.rounds) < 2:
        return False
    return all(s is not None for s in game_statuses(services.store, state.rounds[1].games).values())


def _follow(services: Any, tid: str, watch: Watch, started: float) -> float:
    """Sample until round 2's games all exist; returns when round 1's last game was seen ended."""
    last_game_seen = 0.0
    state = service.load(services, tid)
    while not _round_two_open(services, tid):
        watch.sample()
        if not last_game_seen and _all_finished(services, state):
            last_game_seen = time.monotonic()
        elapsed = time.monotonic() - started
        if int(elapsed) % 60 < POLL_S:
            live = services.redis.zcard(keys.LIVE_GAMES)
            print(f"  ... {elapsed:.0f} s, {live} games live, load {os.getloadavg()[0]:.1f}", flush=True)
        if elapsed > 3600:
            raise TimeoutError("the round did not close within an hour")
        time.sleep(POLL_S)
    return last_game_seen or time.monotonic()


def _close_job(client: Any, tid: str) -> tuple[float, float, float]:
    """Round 1's rq job, from rq's own timestamps on it and the decision's on its events: seconds queued,
    deciding (loading the games, recording, rating, pairing, appending) and acting (trimming, opening)."""
    job = Job.fetch(round_job_id(tid, 1), connection=client)
    _wait(lambda: job.get_status(refresh=True) in ("finished", "failed"), 600, "the round job ended")
    job.refresh()
    assert job.enqueued_at and job.started_at and job.ended_at, "the round job has not run"
    envelopes = TournamentStore(client).envelopes(tid)
    paired = next(e for e in envelopes if (d := decode(e)) and isinstance(d, RoundPaired) and d.round == 2)
    started_ms = job.started_at.timestamp() * 1000
    queued = (job.started_at - job.enqueued_at).total_seconds()
    return queued, (paired.ts_ms - started_ms) / 1000, job.ended_at.timestamp() - paired.ts_ms / 1000


def _offline(client: Any, tid: str) -> None:
    """The close's domain work again in this process on the tournament's own events: the round's
    ``record_tables`` (rating each table, then pairing round 2) and the pairing alone; a cold fold."""
    envelopes = TournamentStore(client).envelopes(tid)
    started = time.perf_counter()
    events: list[TournamentEvent] = [decode(e) for e in envelopes]
    fold(events)
    cold = time.perf_counter() - started
    first = next(i for i, e in enumerate(events) if isinstance(e, TableFinished))
    paired = next(i for i, e in enumerate(events) if isinstance(e, RoundPaired) and e.round == 2)
    before = fold(events[:first])
    tables = [e for e in events[first:paired] if isinstance(e, TableFinished)]
    started = time.perf_counter()
    recorded = tournament_rules.record_tables(before, tables)
    close = time.perf_counter() - started
    closed = fold(events[first:paired], before)  # up to and with RoundClosed
    started = time.perf_counter()
    pairing = tournament_rules.advance(closed)
    pair_s = time.perf_counter() - started
    assert pairing == [events[paired]] and recorded == events[first : paired + 1], "not the recorded round"
    print(f"  pairing round 2 of {len(before.entrants):,} players (pair_swiss with round 1's history, "
          f"standings first): {pair_s:.2f} s; recording round 1's {len(tables):,} tables and pairing: "
          f"{close:.2f} s (in this process, the recorded round 2 again)")  # fmt: skip
    print(f"  a cold fold of the tournament's {len(events):,} events: {cold:.2f} s")


def _described(services: Any, tid: str) -> None:
    """What a GET of the tournament builds (``describe``: standings, rounds, tables), warm and as JSON."""
    started = time.perf_counter()
    body = json.dumps(service.describe(services, tid, full=True)).encode()
    print(f"  the tournament described in full (a GET's body, from the kept fold): "
          f"{time.perf_counter() - started:.2f} s, {len(body) / 2**20:.1f} MiB of JSON")  # fmt: skip


def run(players: int = PLAYERS, game: str = GAME) -> None:
    folder = Path(tempfile.mkdtemp(prefix="hm-bench-swiss"))
    server = EmbeddedRedis(folder / "data")
    url = server.start()
    env = {**os.environ, "REDIS_URL": url, "HARBORMASTER_ARCHIVE": str(folder / "archive"),
           "HARBORMASTER_LOG_LEVEL": "warning"}  # fmt: skip
    children: dict[str, Any] = {}
    try:
        os.environ.update({k: env[k] for k in ("HARBORMASTER_ARCHIVE", "HARBORMASTER_LOG_LEVEL")})
        services = build(Settings.from_env(), url)
        client = services.redis
        services.bus.ensure_groups()
        children["fold worker"] = _spawn(["worker"], env)
        for n in range(2):
            children[f"rq worker {n + 1}"] = _spawn(["rq-worker", "--no-fork"], env)
        _wait(lambda: client.zcard(keys.WORKERS + ":bots") >= 2, 120, "bot runners up")
        spec = service.TournamentSpec(
            game=game, rounds=2, table_size=4, players=players, bots=["greedy", "random"]
        )
        tid = service.create(services, spec)
        watch = Watch(client)
        watch.sample()
        before_mem = int(client.info("memory")["used_memory"])
        before_cmds = int(client.hget(METRICS_KEY, "commands_applied") or 0)
        started = time.monotonic()
        service.start(services, url, tid)
        opened = time.monotonic() - started
        tables = len(service.load(services, tid).rounds[0].games)
        last_game = _follow(services, tid, watch, started)
        round_s = time.monotonic() - started
        queued, deciding, acting = _close_job(client, tid)
        commands = int(client.hget(METRICS_KEY, "commands_applied") or 0) - before_cmds
        info = client.info("memory")
        print(f"{game}: one Swiss round of {players:,} bot players at {tables:,} tables of 4 "
              f"(embedded Redis, 1 fold worker, 2 rq workers with bot runners; load average {watch.load_text()})")  # fmt: skip
        print(f"  the round, start command to round 2 opened: {round_s:.0f} s ({round_s / 60:.1f} min) — "
              f"round 1 opened {opened:.1f} s, its last game ended at {last_game - started:.0f} s "
              f"(sampled every {POLL_S:.0f} s); {commands:,} commands")  # fmt: skip
        print(f"  the round's close (its rq job, {queued:.1f} s in the queue): {deciding + acting:.1f} s — "
              f"deciding {deciding:.1f} s (read {tables:,} results, record, rate, pair round 2, append), "
              f"acting {acting:.1f} s (trim {tables:,} games, open round 2's {tables:,})")  # fmt: skip
        _offline(client, tid)
        _described(services, tid)
        growth = watch.used_peak - before_mem
        print(f"  Redis: used_memory peak {int(info['used_memory_peak']) / 2**20:.0f} MiB; growth at its "
              f"sampled peak {growth / 2**20:.0f} MiB = {growth / players / 1024:.1f} KiB a player, "
              f"{growth / tables / 1024:.0f} KiB a table (live games and their results, archives not yet trimmed)")  # fmt: skip
        peaks = {name: peak_rss_mb(p.pid) for name, p in children.items()}
        peaks["redis-server"] = peak_rss_mb(int(client.info("server")["process_id"]))
        peaks["this process (creates, starts, opens round 1, watches)"] = peak_rss_mb(os.getpid())
        print("  peak resident memory (VmHWM): " + ", ".join(f"{n} {mb:.0f} MB" for n, mb in peaks.items()))
        total = sum(peaks.values()) * 2**20
        print(f"  all processes' peaks summed: {total / 2**20:.0f} MB = {total / players / 1024:.0f} KiB a player, "
              f"{total / tables / 1024:.0f} KiB a table")  # fmt: skip
    finally:
        for child in children.values():
            child.terminate()
        for child in children.values():
            try:
                child.wait(timeout=30)
            except Exception:
                child.kill()
        server.stop()
        shutil.rmtree(folder, ignore_errors=True)  # ~1 GB of Redis data and archives at 10,000 players


def main() -> None:
    run()


if __name__ == "__main__":
    main()
