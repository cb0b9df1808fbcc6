"""Fold throughput on a Redis Cluster of 1, 2 and 3 masters against a single Redis (issue 21's figures).

Each set-up gets the same load as the foundation's drain figure: 200 race games, ``Note`` commands (the
rules cost next to nothing, so this measures bus + fold worker + append), two warm ``harbormaster worker``
processes with their partitions settled. The workers are paused (``SIGSTOP``) while the inbox is filled
(on a Cluster no transaction spans the partitions' slots, so the foundation's one ``MULTI`` cannot hold
the load back), then resumed, and the drain is timed from the first command applied after the resume to
the last. Besides the rate, each run prints the CPU each master's Redis and the workers spent a command
(``INFO cpu`` and ``/proc``): on this 2-core machine every master and worker shares the same two cores, so
more masters cannot add throughput here; the CPU a command costs a master is what says how many commands
a second a master on a core of its own carries, which is what sizing needs (``deploy/CLUSTER.md``).

``python -m tests.bench cluster``; needs ``redis-cli`` (it forms the clusters), skipped without it.
"""

from __future__ import annotations

import os
import secrets
import signal
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any, NamedTuple

from events import codec, keys
from events.keys import partition_for
from services.redis_launcher import EmbeddedRedis
from tests.bench.load_generator import GAMES, NOTE, PARTITIONS, _process_cpu_seconds, redis_cpu_seconds
from tests.support.pipeline import services_for, stop_process, worker_process
from tests.support.redis_cluster import LocalCluster, why_no_cluster

COMMANDS = 40_000
WORKERS = 2
RUNS = 3
PAUSE_LIMIT_S = 2.0
"""Leases live 3 s: a pause longer than this would let the paused workers' leases lapse mid-run."""


class Drain(NamedTuple):
    rate: float
    redis_us: list[float]
    """CPU µs a command, per master (each master's CPU over the commands applied in all)."""
    worker_us: float
    paused_s: float


def _services(url: str, cluster: bool) -> Any:
    if not cluster:
        return services_for(url, partitions=PARTITIONS)
    from services.bootstrap import build
    from services.config import Settings
    from tests.conftest import TEST_GAMES
    from tests.support.pipeline import COUNTER_PLUGIN, RACE_PLUGIN

    settings = Settings(
        redis_url=url, data_dir=Path(".harbormaster-test").resolve(), partitions=PARTITIONS,
        game_plugins=(RACE_PLUGIN, COUNTER_PLUGIN),
    )  # fmt: skip
    return build(settings, url, games=TEST_GAMES)


def _masters(services: Any) -> list[Any]:
    client = services.redis
    if hasattr(client, "get_primaries"):
        return [client.get_redis_connection(node) for node in client.get_primaries()]
    return [client]


def _applied(services: Any) -> int:
    return int(services.redis.hget("hm:metrics", "commands_applied") or 0)


def _wait_applied(services: Any, at_least: int, timeout: float = 300) -> None:
    deadline = time.monotonic() + timeout
    while _applied(services) < at_least:
        if time.monotonic() > deadline:
            raise RuntimeError(f"only {_applied(services)} of {at_least} commands applied")
        time.sleep(0.002)


def _settle(services: Any, workers: int) -> None:
    """Until the workers have split the partitions evenly (no rebalancing while measuring)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        owners = [services.redis.get(keys.lease(p)) for p in range(PARTITIONS)]
        counts = {o: owners.count(o) for o in owners if o}
        if None not in owners and len(counts) == workers and max(counts.values()) - min(counts.values()) <= 1:
            return
        time.sleep(0.1)


def _inbox_batches(services: Any, tag: str) -> list[tuple[Any, list[tuple[str, bytes]]]]:
    """The load, encoded ahead and grouped by the node holding each partition, so that the fill while the
    workers are paused is plain pipelines (the cluster pipeline's routing took over 3 s for 60,000 commands
    on this machine, long enough for the paused workers' leases to lapse)."""
    client = services.redis
    grouped: dict[int, tuple[Any, list[tuple[str, bytes]]]] = {}
    for i in range(COMMANDS):
        message = services.bus.message(f"b{i % GAMES}", 0, NOTE, f"{tag}-{i}")
        key = keys.inbox(partition_for(message.game_id, PARTITIONS))
        node = (
            client.get_redis_connection(client.get_node_from_key(key))
            if hasattr(client, "get_node_from_key")
            else client
        )
        grouped.setdefault(id(node), (node, []))[1].append((key, codec.encode_inbox(message)))
    return list(grouped.values())


def drain(url: str, cluster: bool, tag: str, rq_url: str) -> Drain:
    services = _services(url, cluster)
    for master in _masters(services):
        master.flushall()
    for g in range(GAMES):
        services.store.create("race", f"b{g}", 2, {}, secrets.token_bytes(32))
    services.bus.ensure_groups()
    env = {"RQ_REDIS_URL": rq_url}  # a worker on a Cluster needs rq's own Redis (none is used here)
    procs = [worker_process(url, partitions=PARTITIONS, extra_env=env) for _ in range(WORKERS)]
    try:
        _settle(services, WORKERS)
        services.bus.submit_many(services.bus.message(f"b{g}", 0, NOTE, f"warm-{g}") for g in range(GAMES))
        _wait_applied(services, GAMES)
        batches = _inbox_batches(services, tag)
        for p in procs:
            os.kill(p.pid, signal.SIGSTOP)
        paused = time.perf_counter()
        for connection, entries in batches:
            for start in range(0, len(entries), 5000):
                pipe = connection.pipeline(transaction=False)
                for key, payload in entries[start : start + 5000]:
                    pipe.xadd(key, {"m": payload})
                pipe.execute()
        paused_s = time.perf_counter() - paused
        redis_before = [redis_cpu_seconds(m) for m in _masters(services)]
        workers_before = sum(_process_cpu_seconds(p.pid) for p in procs)
        for p in procs:
            os.kill(p.pid, signal.SIGCONT)
        _wait_applied(services, GAMES + 1)
        started, base = time.perf_counter(), _applied(services)
        _wait_applied(services, GAMES + COMMANDS)
        elapsed = time.perf_counter() - started
        redis_us = [
            (redis_cpu_seconds(m) - before) / COMMANDS * 1e6
            for m, before in zip(_masters(services), redis_before, strict=True)
        ]
        worker_us = (sum(_process_cpu_seconds(p.pid) for p in procs) - workers_before) / COMMANDS * 1e6
        return Drain((GAMES + COMMANDS - base) / elapsed, redis_us, worker_us, paused_s)
    finally:
        for p in procs:
            os.kill(p.pid, signal.SIGCONT)
            stop_process(p, timeout=60)


def _print(label: str, runs: list[Drain], single: float | None) -> float:
    rates = [r.rate for r in runs]
    median = statistics.median(rates)
    ratio = f", {median / single:.2f} of the single Redis" if single else ""
    masters = len(runs[0].redis_us)
    per_master = [statistics.median(r.redis_us[m] for r in runs) for m in range(masters)]
    print(
        f"{label}: {', '.join(f'{r:,.0f}' for r in rates)} commands/s (median {median:,.0f}{ratio}); "
        f"per master {median / masters:,.0f} /s; Redis CPU a command per master "
        f"{', '.join(f'{u:.1f}' for u in per_master)} µs (all masters {sum(per_master):.1f} µs); "
        f"workers {statistics.median(r.worker_us for r in runs):.1f} µs; "
        f"inbox filled in {max(r.paused_s for r in runs):.1f} s",
        flush=True,
    )
    return median


def _runs(url: str, cluster: bool, tag: str, rq_url: str) -> list[Drain]:
    """``RUNS`` drains whose fill stayed under ``PAUSE_LIMIT_S`` (a longer one is run again, at most twice
    as many tries: with the leases lapsed, both workers take partitions over mid-drain and it measures
    that instead)."""
    kept: list[Drain] = []
    for n in range(2 * RUNS):
        run = drain(url, cluster, f"{tag}-{n}", rq_url)
        if run.paused_s <= PAUSE_LIMIT_S:
            kept.append(run)
        else:
            print(f"  (a fill took {run.paused_s:.1f} s, over {PAUSE_LIMIT_S} s: run discarded)", flush=True)
        if len(kept) == RUNS:
            break
    return kept or [run]


def main() -> None:
    if reason := why_no_cluster():
        print(f"skipped: {reason}")
        return
    with tempfile.TemporaryDirectory(prefix="hm-bench-cluster-") as tmp:
        # Loopback TCP, as the cluster's nodes are reached; it doubles as the workers' RQ_REDIS_URL later.
        single_server = EmbeddedRedis(Path(tmp) / "single", unix_socket=False)
        single_url = single_server.start()
        figures = {}
        try:
            single = _print("single Redis", _runs(single_url, False, "s", single_url), None)
            for masters in (1, 2, 3):
                with LocalCluster(Path(tmp) / f"c{masters}", masters=masters, replicas=0) as cluster:
                    runs = _runs(cluster.url, True, f"c{masters}", single_url)
                    figures[masters] = _print(f"cluster, {masters} master(s)", runs, single)
        finally:
            single_server.stop()
    print(
        f"2 and 3 masters against 1: {figures[2] / figures[1]:.2f}x, {figures[3] / figures[1]:.2f}x "
        "(every master and both workers share this machine's two cores)",
        flush=True,
    )


if __name__ == "__main__":
    main()
