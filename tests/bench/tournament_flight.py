"""One bot tournament with N games in flight at once, from the first command to the last standings row.

A Swiss round of ``4 * tables`` Manila bot players at tables of 4 (greedy and random bots in turn), so the
round's ``tables`` games are all in flight together; one round, so the tournament finishes when the round
job has recorded every table and the standings. Its own embedded Redis, fold worker(s) and rq workers
(each with its bot runner thread, ``workers/botrunner.py``); the tournament is created and started from
this process, which then only watches.

Printed: games per minute and commands per second over the whole run; p99 (and p50) command latency,
submission to decision and append, from every applied command's own record (``submitted_ms``, ``ts_ms``);
Redis memory per finished game (``used_memory`` over the run, and ``MEMORY USAGE`` of a game's keys), and
again once every game is archived, verified and trimmed from Redis; peak
resident memory (``VmHWM``) of each process.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from events import codec, keys
from services import tournament_service as service
from services.bootstrap import build
from services.config import Settings
from services.redis_launcher import EmbeddedRedis
from workers.jobs.archive_trigger import ARCHIVE_INDEX, trim_archived
from workers.metrics import METRICS_KEY

GAME = "manila"


def peak_rss_mb(pid: int) -> float:
    """The process's peak resident memory (``VmHWM``) in MB, 0 if it is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return 0.0
    return 0.0


def _spawn(args: list[str], env: dict[str, str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "services.cli", *args], env=env)


def latencies_ms(client: Any, game_ids: list[str]) -> list[int]:
    """Submission to decision of every applied bot command of the games (from their results hashes)."""
    out: list[int] = []
    for start in range(0, len(game_ids), 50):
        pipe = client.pipeline(transaction=False)
        for game_id in game_ids[start : start + 50]:
            pipe.hvals(keys.results(game_id))
        for values in pipe.execute():
            for raw in values:
                if raw[:1].isdigit():  # the position field (``<seq>:<hash>``), not a record
                    continue
                record = codec.decode_record(raw)
                if record.status == "applied" and record.origin == "bot" and record.submitted_ms:
                    out.append(max(0, record.ts_ms - record.submitted_ms))
    return sorted(out)


def game_memory(client: Any, game_id: str) -> int:
    return sum(client.memory_usage(k) or 0 for k in client.scan_iter(match=f"hm:{{g:{game_id}}}:*"))


def _settled(client: Any, game_ids: list[str]) -> bool:
    """Every game archived and its archive verified."""
    return all(json.loads(e).get("verified") if e else False for e in client.hmget(ARCHIVE_INDEX, game_ids))


def _wait(check: Any, timeout_s: float, what: str) -> None:
    deadline = time.monotonic() + timeout_s
    while not check():
        if time.monotonic() > deadline:
            raise TimeoutError(what)
        time.sleep(0.5)


def run(tables: int = 1000, folds: int = 1, rq_workers: int = 2) -> None:
    folder = Path(tempfile.mkdtemp(prefix="hm-bench-flight"))
    server = EmbeddedRedis(folder / "data")
    url = server.start()
    archive = folder / "archive"
    env = {
        **os.environ,
        "REDIS_URL": url,
        "HARBORMASTER_ARCHIVE": str(archive),
        "HARBORMASTER_LOG_LEVEL": "warning",
        # The workers archive and verify every game but trim none: the latencies are read from the games'
        # results first; the trim follows here (``trim_archived``, what the jobs call) and is measured apart.
        "HARBORMASTER_ARCHIVE_TRIM": "0",
    }
    children: dict[str, subprocess.Popen[bytes]] = {}
    try:
        os.environ.update({k: env[k] for k in ("HARBORMASTER_ARCHIVE", "HARBORMASTER_LOG_LEVEL")})
        os.environ.pop("HARBORMASTER_ARCHIVE_TRIM", None)
        services = build(Settings.from_env(), url)
        client = services.redis
        services.bus.ensure_groups()
        for n in range(folds):
            children[f"fold worker {n + 1}"] = _spawn(["worker"], env)
        for n in range(rq_workers):
            children[f"rq worker {n + 1} (+ bot runner)"] = _spawn(["rq-worker", "--no-fork"], env)
        _wait(lambda: client.zcard(keys.WORKERS + ":bots") >= rq_workers, 60, "bot runners up")
        players = 4 * tables
        spec = service.TournamentSpec(
            game=GAME, rounds=1, table_size=4, players=players, bots=["greedy", "random"]
        )
        tid = service.create(services, spec)
        before_mem = int(client.info("memory")["used_memory"])
        before_cmds = int(client.hget(METRICS_KEY, "commands_applied") or 0)
        started = time.monotonic()
        service.start(services, url, tid)
        opened = time.monotonic() - started
        in_flight_peak = 0
        while service.load(services, tid).status != "finished":
            in_flight_peak = max(in_flight_peak, int(client.zcard(keys.LIVE_GAMES)))
            time.sleep(1.0)
            if time.monotonic() - started > 30 and int(time.monotonic() - started) % 60 == 0:
                print(
                    f"  ... {time.monotonic() - started:.0f} s, {client.zcard(keys.LIVE_GAMES)} games live",
                    flush=True,
                )
        elapsed = time.monotonic() - started
        commands = int(client.hget(METRICS_KEY, "commands_applied") or 0) - before_cmds
        finished_mem = int(client.info("memory")["used_memory"])
        state = service.load(services, tid)
        game_ids = list(service.game_ids(state))
        sample = game_ids[0]
        sample_mem = game_memory(client, sample)
        print(
            f"{GAME}: {players} bot players, one Swiss round of {tables} tables of 4 ({tables} games in flight at once, "
            f"peak {in_flight_peak} live in the index; the round opened in {opened:.1f} s)"
        )
        print(
            f"  first command to last standings row: {elapsed:.0f} s — {tables / elapsed * 60:.0f} games/min, "
            f"{commands:,} commands, {commands / elapsed:.0f} commands/s"
        )
        lat = latencies_ms(client, game_ids)
        if lat:
            print(
                f"  command latency (submit -> decided and appended, {len(lat):,} bot commands): "
                f"p50 {lat[len(lat) // 2]} ms, p99 {lat[int(len(lat) * 0.99)]} ms, max {lat[-1]} ms"
            )
        print(
            f"  Redis memory per finished game: {(finished_mem - before_mem) / tables / 1024:.0f} KiB (used_memory "
            f"growth / games); one game's keys: {sample_mem / 1024:.0f} KiB"
        )
        _wait(lambda: _settled(client, game_ids), 1800, "every game archived and verified")
        trimmed = trim_archived(services.store, game_ids)
        archived_mem = int(client.info("memory")["used_memory"])
        print(
            f"  after archiving every game and trimming {len(trimmed)}: {(archived_mem - before_mem) / tables / 1024:.1f} KiB per game "
            f"(used_memory growth / games); one game's keys: {game_memory(client, sample) / 1024:.1f} KiB; "
            f"archive {sum(p.stat().st_size for p in archive.glob('*.jsonl.gz')) / tables / 1024:.0f} KiB a game on disk"
        )
        redis_pid = int(client.info("server")["process_id"])
        peaks = {name: peak_rss_mb(p.pid) for name, p in children.items()}
        peaks["redis-server"] = peak_rss_mb(redis_pid)
        peaks["this process (creates, starts, watches)"] = peak_rss_mb(os.getpid())
        print("  peak resident memory: " + ", ".join(f"{name} {mb:.0f} MB" for name, mb in peaks.items()))
    finally:
        for child in children.values():
            child.terminate()
        for child in children.values():
            try:
                child.wait(timeout=30)
            except subprocess.TimeoutExpired:
                child.kill()
        server.stop()


if __name__ == "__main__":
    run(int(sys.argv[1]) if len(sys.argv) > 1 else 1000)
