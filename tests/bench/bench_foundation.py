"""Foundation figures (issue 3): raw pipelined XADD, end-to-end rate with 1 and 2 workers, latency.

All on one embedded Redis (or ``REDIS_URL``), with real ``harbormaster worker`` processes folding the
test dice race (``Note`` commands: the rules cost next to nothing, so this measures the pipeline).

The latency figures come from runs with nothing beside the pipeline but its load generator. The platform
probe (``platform_probe.py``) runs in a separate run at the same rate, paired with them: it wakes every
millisecond and sends a ``PING`` to the Redis under test, and on these two cores that doubled the p99 it sat
beside (five alternating pairs at 14,000/s, one worker: p99 9-23 ms with it, 7-8 ms without). So it says
where a tail comes from, and the runs without it say how long the tail is.
"""

from __future__ import annotations

import os
import secrets
import statistics
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

from events import codec, keys
from events.keys import partition_for
from services.redis_launcher import EmbeddedRedis
from tests.bench.latency_figures import HalfLoad, Latency, _by_chance, _p99_by_speed, verdict
from tests.bench.load_generator import (
    GAMES,
    GENERATOR_NICE,
    NOTE,
    PARTITIONS,
    CpuMeter,
    CpuUse,
    _send_steadily,
    ahead_in_the_queue,
    pinned,
)
from tests.bench.platform_probe import ProbeReport, RunningProbe, cpu_ticks, steal_share
from tests.bench.vcpu_speed import RunningSampler, SpeedSamples
from tests.support.pipeline import services_for, stop_process, worker_process

STEADY_LOADS = (5_000, 10_000, 15_000, 20_000)
"""Steady rates spread over 200 games, as a tournament's traffic is: one command per game per batch,
unlike the drain of a full inbox (many commands per game per batch, cheaper per command)."""
KEEPING_UP_MS = 50
HALF_LOAD_RUNS = 3
RESOLUTION = 500


def raw_xadd_rate(services, n: int = 200_000, pipeline: int = 1000) -> float:
    payload = b"x" * 120
    started = time.perf_counter()
    for _ in range(0, n, pipeline):
        pipe = services.redis.pipeline(transaction=False)
        for _ in range(pipeline):
            pipe.xadd("bench:raw", {"m": payload})
        pipe.execute()
    rate = n / (time.perf_counter() - started)
    services.redis.delete("bench:raw")
    return rate


def _fresh(url: str):
    services = services_for(url, partitions=PARTITIONS)
    services.redis.flushdb()
    _compact_aof(services)
    for g in range(GAMES):
        services.store.create("race", f"b{g}", 2, {}, secrets.token_bytes(32))
    services.bus.ensure_groups()
    return services


def _compact_aof(services) -> None:
    """Rewrite the append-only file after the previous phase, so that no rewrite of its data falls into the
    next phase's window (a rewrite of ~100 MB on these two cores adds its own spike to the p99)."""
    if services.redis.config_get("appendonly").get("appendonly") != "yes":
        return
    while services.redis.info("persistence")["aof_rewrite_in_progress"]:
        time.sleep(0.05)
    services.redis.bgrewriteaof()
    time.sleep(0.05)
    while services.redis.info("persistence")["aof_rewrite_in_progress"] or services.redis.info(
        "persistence"
    ).get("aof_rewrite_scheduled"):
        time.sleep(0.05)


def _submit(services, n: int, tag: str) -> None:
    batch = []
    for i in range(n):
        batch.append(services.bus.message(f"b{i % GAMES}", 0, NOTE, f"{tag}-{i}"))
        if len(batch) == 1000:
            services.bus.submit_many(batch)
            batch = []
    services.bus.submit_many(batch)


def _applied(services) -> int:
    return int(services.redis.hget("hm:metrics", "commands_applied") or 0)


def end_to_end_rate(url: str, workers: int, n: int = 100_000) -> float:
    """Saturating load on running, warm workers: the whole load lands in the inbox at once (one MULTI/EXEC,
    so no worker sees any of it early); time from then until the last command is applied."""
    services = _fresh(url)
    procs = [worker_process(url, partitions=PARTITIONS) for _ in range(workers)]
    _settle_leases(services, workers)
    _warm_up(services)
    transaction = services.redis.pipeline(transaction=True)
    for i in range(n):
        message = services.bus.message(f"b{i % GAMES}", 0, NOTE, f"sat-{i}")
        transaction.xadd(
            keys.inbox(partition_for(message.game_id, PARTITIONS)), {"m": codec.encode_inbox(message)}
        )
    transaction.execute()
    started = time.perf_counter()
    while _applied(services) < n + GAMES:
        time.sleep(0.005)
    elapsed = time.perf_counter() - started
    for p in procs:
        stop_process(p)
    return n / elapsed


def _warm_up(services) -> None:
    """One command per game, so that every game is hot in its worker's cache before the clock starts."""
    _submit(services, GAMES, "warm")
    while _applied(services) < GAMES:
        time.sleep(0.01)


def latency_at(
    url: str,
    rate: float,
    seconds: float = 8.0,
    workers: int = 2,
    redis_pid: int | None = None,
    probed: bool = False,
) -> Latency:
    """Submit at a steady ``rate``; latency = Redis's clock at the append - submission time. With ``probed``,
    the platform probe runs alongside; with ``redis_pid``, pinned (``pinned``)."""
    run = steady_run(url, rate, seconds, workers, redis_pid, probed)
    latencies = [latency for _, latency in run.latencies]
    q = statistics.quantiles(latencies, n=100)
    slow = [(submitted, latency) for submitted, latency in run.latencies if latency > 20]
    overlaps: dict[str, int] = {}
    chance: dict[str, float] = {}
    if run.platform is not None:
        overlaps = run.platform.overlapping(slow)
        chance = _by_chance(run.platform, slow, run.latencies[0][0], run.latencies[-1][0])
    return Latency(
        q[49],
        q[98],
        len(latencies),
        len(slow),
        overlaps,
        chance,
        run.platform,
        run.steal,
        run.cpu,
        run.speeds,
        _p99_by_speed(run.latencies, run.speeds),
    )


class Verdict(NamedTuple):
    """Whether the workers kept up with a steady rate, and what was seen on the way."""

    kept_up: bool
    median_ms: float
    """The median latency of the last tenth of the commands."""
    offered: float
    """The rate the load generator managed to offer (it shares the cores with what it measures)."""
    speeds: SpeedSamples
    """Each virtual CPU's speed during the run."""


def keeps_up(
    url: str, rate: float, workers: int, seconds: float = 6.0, redis_pid: int | None = None
) -> Verdict:
    """Whether the workers keep up with a steady ``rate``: the median latency of the last tenth of the
    commands submitted is at most ``KEEPING_UP_MS`` (past saturation, the queue and the latency grow for as
    long as the load lasts; below it they stay flat), and the load generator offered the rate: one that
    fell behind found the machine's cores saturated, which is saturation too. Nothing runs beside it
    but the load generator, as in the latency runs."""
    run = steady_run(url, rate, seconds, workers, redis_pid)
    runs = run.latencies
    last = [latency for _, latency in runs[-len(runs) // 10 :]]
    median = statistics.median(last)
    offered = len(runs) / max(0.001, (runs[-1][0] - runs[0][0]) / 1000)
    kept_up = median <= KEEPING_UP_MS and offered >= 0.97 * rate
    return Verdict(kept_up, median, offered, run.speeds)


def saturating_steady_rate(
    url: str, workers: int, low: float, high: float, redis_pid: int | None = None
) -> float:
    """The highest steady rate (to within ``RESOLUTION``) of the latency runs' traffic that the workers keep
    up with, by bisection between a rate they keep up with and one they do not."""
    while high - low > RESOLUTION:
        middle = (low + high) / 2
        verdict = keeps_up(url, middle, workers, redis_pid=redis_pid)
        print(f"  steady {middle:,.0f}/s with {workers} worker(s): offered {verdict.offered:,.0f}/s, median "
              f"latency at the end {verdict.median_ms:.0f} ms -> {'keeps up' if verdict.kept_up else 'saturated'}"
              f" ({verdict.speeds.summary()})")  # fmt: skip
        low, high = (middle, high) if verdict.kept_up else (low, middle)
    return low


class SteadyRun(NamedTuple):
    latencies: list[tuple[int, int]]
    """(submission ms, latency ms) of each command, in the order submitted."""
    platform: ProbeReport | None
    """What the platform probe saw, if it ran beside (``probed``)."""
    steal: float | None
    cpu: CpuUse
    speeds: SpeedSamples
    """Each virtual CPU's speed during the run (``vcpu_speed``)."""


def steady_run(
    url: str,
    rate: float,
    seconds: float,
    workers: int,
    redis_pid: int | None = None,
    probed: bool = False,
) -> SteadyRun:
    """Submit at a steady ``rate`` for ``seconds``; latency = Redis's clock at the append - submission
    time. With ``redis_pid``, Redis has the first core to itself and the workers and the load generator
    share the others. With ``probed``, the platform probe runs alongside (it costs the pipeline a share of
    the cores: see the module's docstring). The hypervisor's steal is measured either way."""
    services = _fresh(url)
    procs = [worker_process(url, partitions=PARTITIONS) for _ in range(workers)]
    _settle_leases(services, workers)
    _warm_up(services)
    probe = None
    if probed:
        watched = [int(services.redis.info("server")["process_id"]), *(p.pid for p in procs)]
        probe = RunningProbe(url, None, watched)
    beside = [*(p.pid for p in procs), *([probe.process.pid] if probe else [])]
    ticks = cpu_ticks()
    meter = CpuMeter(services.redis, [p.pid for p in procs])
    sampler = RunningSampler()  # not pinned: it visits every CPU, Redis's own included
    with pinned(redis_pid, beside):
        sent, cpu = _send_steadily(services, rate, seconds, meter)
    steal = steal_share(ticks, cpu_ticks())
    while _applied(services) < sent:
        time.sleep(0.01)
    # Only now, with every command appended, do the sampler and the probe stop: a process that exits
    # takes a core for tens of milliseconds, and the commands still in flight would pay for it.
    speeds = sampler.samples()
    platform = probe.report() if probe else None
    for p in procs:
        stop_process(p)
    return SteadyRun(_latencies(services), platform, steal, cpu, speeds)


def _settle_leases(services, workers: int) -> None:
    """Wait until the workers have split the partitions between them (no rebalancing while measuring)."""
    while True:
        owners = [services.redis.get(keys.lease(p)) for p in range(PARTITIONS)]
        counts = {o: owners.count(o) for o in owners if o}
        if None not in owners and len(counts) == workers and max(counts.values()) - min(counts.values()) <= 1:
            return
        time.sleep(0.1)


def _latencies(services) -> list[tuple[int, int]]:
    """Per applied command, in the order submitted: its submission time and Redis's clock at its append
    (``t`` on its last event) - its submission time."""
    out: list[tuple[int, int, int]] = []
    for g in range(GAMES):
        for _, fields in services.redis.xrange(keys.events(f"b{g}")):
            if b"r" not in fields:
                continue
            record = codec.decode_record(fields[b"r"])
            if record.command_id.startswith("lat-"):
                order = int(record.command_id[4:])
                out.append((order, record.submitted_ms, int(fields[b"t"]) - record.submitted_ms))
    return [(submitted, latency) for _, submitted, latency in sorted(out)]


def _half_load_runs(url: str, saturating: float, workers: int) -> list[HalfLoad]:
    """The latency at half of the saturating steady load, measured three times at once after its bisection
    (the machine's speed drifts from minute to minute), then once more with the platform probe beside it,
    to see where the tail comes from (its own cost included)."""
    rate = saturating / 2
    runs = []
    for attempt in range(1, HALF_LOAD_RUNS + 1):
        figures = latency_at(url, rate, workers=workers)
        print(f"latency submit->appended at half of the saturating steady load ({rate:,.0f}/s), "
              f"{workers} worker(s), run {attempt}, {figures.describe()}")  # fmt: skip
        runs.append(HalfLoad(f"{workers} worker{'s' if workers > 1 else ''}", rate, figures))
    figures = latency_at(url, rate, workers=workers, probed=True)
    print(f"  the same with the platform probe beside it, {figures.describe()}")
    return runs


def main() -> None:
    url = os.environ.get("REDIS_URL")
    server = None
    if not url:
        server = EmbeddedRedis(Path(tempfile.mkdtemp(prefix="hm-bench-")))
        url = server.start()
    try:
        services = services_for(url)
        with ahead_in_the_queue() as raised:
            print(f"load generator ahead of the workers and Redis for a core (nice {GENERATOR_NICE}): "
                  f"{'yes' if raised else 'no, not permitted here'}")  # fmt: skip
        raw = raw_xadd_rate(services)
        print(f"raw pipelined XADD from Python:          {raw:10,.0f} /s")
        if server is not None and server.url != server.tcp_url:
            # The pipeline talks to the embedded Redis through its Unix socket; the ratios are against the
            # faster of the two ways in, so that the transport cannot flatter them.
            raw_tcp = raw_xadd_rate(services_for(server.tcp_url))
            print(
                f"  the same over loopback TCP:            {raw_tcp:10,.0f} /s (ratios below: against the faster)"
            )
            raw = max(raw, raw_tcp)
        one = end_to_end_rate(url, 1)
        print(f"end-to-end, 1 worker (bus+decide+append):{one:10,.0f} commands/s  ({one / raw:.2f} of raw)")
        two = end_to_end_rate(url, 2)
        print(f"end-to-end, 2 workers:                   {two:10,.0f} commands/s  ({two / raw:.2f} of raw)")
        print("saturating steady load (the latency runs' traffic), by bisection:")
        saturating = saturating_steady_rate(url, 1, STEADY_LOADS[0], one)
        print(f"saturating steady load, 1 worker:        {saturating:10,.0f} commands/s  ({saturating / one:.2f} of"
              " the drain rate)")  # fmt: skip
        half_loads = _half_load_runs(url, saturating, 1)
        print("the same with 2 workers:")
        saturating_two = saturating_steady_rate(url, 2, STEADY_LOADS[0], two)
        print(f"saturating steady load, 2 workers:       {saturating_two:10,.0f} commands/s")
        half_loads += _half_load_runs(url, saturating_two, 2)
        redis_pid = server.process.pid if server is not None and server.process is not None else None
        if redis_pid is not None:
            print("the same with Redis on a core of its own (workers and load generator on the other):")
            alone = saturating_steady_rate(url, 1, STEADY_LOADS[0], one, redis_pid=redis_pid)
            figures = latency_at(url, alone / 2, workers=1, redis_pid=redis_pid)
            print(f"saturating steady load, 1 worker, Redis pinned: {alone:,.0f}/s; latency at half of it "
                  f"({alone / 2:,.0f}/s), {figures.describe()}")  # fmt: skip
            half_loads.append(HalfLoad("1 worker, Redis on a core of its own", alone / 2, figures))
            figures = latency_at(url, one / 2, workers=1, redis_pid=redis_pid)
            print(f"latency at half of the 1-worker drain rate ({one / 2:,.0f}/s), Redis pinned, "
                  f"{figures.describe()}")  # fmt: skip
        at_rest = RunningProbe(url, 5.0).report()
        print(f"the machine at rest (the probe alone for 5 s), {at_rest.summary()}")
        for workers, rate, why in (
            (1, one / 2, "half of the 1-worker drain rate"),
            (2, two / 2, "half of the 2-worker drain rate"),
            *((1, rate, "steady load") for rate in STEADY_LOADS),
        ):
            figures = latency_at(url, rate, workers=workers)
            print(
                f"latency submit->appended, {workers} worker(s) at {rate:,.0f}/s ({why}), {figures.describe()}"
            )
        print(verdict({"1 worker": one / raw, "2 workers": two / raw}, half_loads))
    finally:
        if server is not None:
            server.stop()
