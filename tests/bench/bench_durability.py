"""What ``appendfsync always`` costs against the shipped ``everysec``, and the window a machine crash can lose.

A command is acknowledged once Redis has appended it (the gateway's XADD to the inbox, the fold worker's
append of its events). Redis writes its append-only file before it answers, so a ``kill -9`` of Redis loses
nothing acknowledged (``make chaos`` checks that); what a crash of the whole machine (power, kernel) can
lose is what the disk had not yet received: with ``everysec`` the writes since the last fsync, a second's
worth, two when an fsync stalls (Redis then delays writes, counted in ``aof_delayed_fsync``). With
``always`` Redis fsyncs before it answers each round of its event loop, and loses nothing acknowledged.

Measured on the embedded Redis, its data folder on the real disk (never tmpfs, where fsync is free): the
fold pipeline's throughput (commands submitted in batches across many games, folded by one in-process
worker), and one client submitting one command at a time and waiting for each acknowledgement.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

import redis

from services.bootstrap import build
from services.config import Settings
from services.redis_launcher import EmbeddedRedis
from tests.conftest import TEST_GAMES
from tests.support.pipeline import RACE_PLUGIN, new_race
from workers.fold import FoldWorker

GAMES = 100
PIPELINE_COMMANDS = 20_000
SEQUENTIAL_COMMANDS = 2_000
NOTE = b'{"type":"Note","text":"x"}'
MODES = ("everysec", "always")


def measure(mode: str, folder: Path) -> tuple[float, float, int]:
    """(pipeline commands/s, sequential acknowledgements/s, delayed fsyncs) under ``appendfsync mode``."""
    with EmbeddedRedis(folder, extra_args=("--appendfsync", mode)) as server:
        settings = Settings(redis_url=server.url, data_dir=folder, game_plugins=(RACE_PLUGIN,))
        services = build(settings, server.url, games=TEST_GAMES)
        games = [f"g{n}" for n in range(GAMES)]
        for game_id in games:
            new_race(services, game_id, seats=2)
        started = time.perf_counter()
        for n in range(SEQUENTIAL_COMMANDS):
            services.bus.submit(games[n % GAMES], 0, NOTE)
        sequential = SEQUENTIAL_COMMANDS / (time.perf_counter() - started)
        worker = FoldWorker(services.redis, services.store, services.bus, block_ms=20)
        worker.run(until_idle=True)  # the sequential ones, not measured
        for start in range(0, PIPELINE_COMMANDS, 1000):
            services.bus.submit_many(
                services.bus.message(games[n % GAMES], 0, NOTE) for n in range(start, start + 1000)
            )
        started = time.perf_counter()
        folded = worker.run(until_idle=True)
        pipeline = folded / (time.perf_counter() - started)
        delayed = int(redis.Redis.from_url(server.url).info("persistence").get("aof_delayed_fsync", 0))
        services.redis.close()
    return pipeline, sequential, delayed


def main() -> None:
    results = {}
    for mode in MODES:
        # Under the current directory, which is on the disk: /tmp may be a tmpfs.
        with tempfile.TemporaryDirectory(prefix=".bench-fsync-", dir=".") as folder:
            results[mode] = measure(mode, Path(folder))
        pipeline, sequential, delayed = results[mode]
        print(
            f"appendfsync {mode:8}: fold pipeline {pipeline:8,.0f} commands/s; one client, one command at a "
            f"time {sequential:7,.0f} acknowledgements/s; delayed fsyncs {delayed}",
            flush=True,
        )
    every, always = results["everysec"], results["always"]
    print(f"always costs {1 - always[0] / every[0]:.0%} of the pipeline's throughput and "
          f"{1 - always[1] / every[1]:.0%} of a single client's acknowledgements/s")  # fmt: skip
    print(
        f"window a machine crash can lose under everysec: the last 1 s of acknowledged writes (2 s if an "
        f"fsync stalls): up to {every[0]:,.0f} ({2 * every[0]:,.0f}) commands at this pipeline's rate; "
        "under always: none"
    )


if __name__ == "__main__":
    main()
