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

import contextlib
import gc
import math
import os
import resource
import secrets
import statistics
import struct
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

from events import codec, keys
from events.envelope import InboxMessage
from events.keys import partition_for
from events.store import now_ms
from services.redis_launcher import EmbeddedRedis
from tests.bench.platform_probe import ProbeReport, RunningProbe, cpu_ticks, steal_share
from tests.bench.vcpu_speed import RunningSampler, SpeedSamples
from tests.support.pipeline import services_for, stop_process, worker_process
from workers.wire import Wire

GAMES = 200
PARTITIONS = 16
NOTE = b'{"type":"Note","text":"x"}'
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


class Latency(NamedTuple):
    """A latency run's figures, and what the platform probe saw if it ran beside it."""

    p50: float
    p99: float
    n: int
    over_20: int
    """Commands slower than 20 ms."""
    over_20_in_stall: dict[str, int]
    """Of those, how many overlapped a stall of the platform, by kind (``platform_probe``); empty unprobed."""
    by_chance: dict[str, float]
    """How many would overlap one by chance: the same spans moved in time (``_by_chance``)."""
    platform: ProbeReport | None
    steal: float | None
    cpu: CpuUse
    speeds: SpeedSamples
    by_speed: dict[str, tuple[float, int]]
    """p99 (ms) and count of the commands submitted while both CPUs ran at full speed ("full") and while
    one ran at half ("half"), where there were at least 100."""

    def describe(self) -> str:
        steal = "" if self.steal is None else f" (the hypervisor took {self.steal:.1%} of the CPU time)"
        by_speed = "; ".join(
            f"{'both ran at full speed' if kind == 'full' else 'one ran at half'} {p99:.0f} ms ({n})"
            for kind, (p99, n) in self.by_speed.items()
        )
        figures = (
            f"n={self.n}: p50 {self.p50:.1f} ms, p99 {self.p99:.1f} ms, {self.over_20} over 20 ms{steal}"
            f"\n    {self.cpu.describe()}\n    {self.speeds.summary()}"
            + (f"; p99 of the commands submitted while {by_speed}" if by_speed else "")
        )
        if self.platform is None:
            return figures
        overlaps = ", ".join(
            f"{kind} {count} (by chance {self.by_chance[kind]:.0f})"
            for kind, count in self.over_20_in_stall.items()
        )
        return (
            f"{figures}\n    {self.platform.summary()}\n"
            f"    of the {self.over_20} commands over 20 ms, overlapping a stall: {overlaps}"
        )


class HalfLoad(NamedTuple):
    """One latency run at half of a set-up's saturating steady load, for the verdict at the end."""

    setup: str
    rate: float
    figures: Latency


def verdict(drain: dict[str, float], half_loads: list[HalfLoad]) -> str:
    """The bench's figures against the foundation issue's targets: end-to-end at least a third of the raw
    ``XADD`` rate (``drain``: set-up -> ratio), and p99 under 20 ms at half of the saturating steady load,
    by set-up, with the p99 of the commands submitted while both CPUs ran at full speed, and Redis's share
    of a core: at half load it needs that share of a CPU at full speed, twice it of one at half speed."""
    lines = ["against the foundation issue's targets:"]
    lines += [
        f"  end-to-end at least 1/3 of raw XADD, {setup}: {ratio:.2f} -> {'met' if ratio >= 1 / 3 else 'NOT met'}"
        for setup, ratio in drain.items()
    ]
    for setup in dict.fromkeys(run.setup for run in half_loads):
        runs = [run for run in half_loads if run.setup == setup]
        p99s = [run.figures.p99 for run in runs]
        full = [
            f"{run.figures.by_speed['full'][0]:.0f}" if "full" in run.figures.by_speed else "-"
            for run in runs
        ]
        shares = [run.figures.cpu.redis / run.figures.cpu.seconds for run in runs]
        lines.append(
            f"  p99 under 20 ms at half of the saturating steady load, {setup} ({runs[0].rate:,.0f}/s): "
            + ", ".join(f"{p99:.0f}" for p99 in p99s)
            + f" ms -> {sum(p99 < 20 for p99 in p99s)} of {len(runs)}; while both CPUs ran at full speed "
            + ", ".join(full)
            + f" ms; Redis used {min(shares):.0%}-{max(shares):.0%} of a core"
        )
    return "\n".join(lines)


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


def _p99_by_speed(latencies: list[tuple[int, int]], speeds: SpeedSamples) -> dict[str, tuple[float, int]]:
    """The p99 of the commands submitted while both CPUs ran at full speed, and while one ran at half."""
    groups: dict[str, list[int]] = {"full": [], "half": []}
    slow = speeds.slow_at(submitted for submitted, _ in latencies)
    for (_, latency), at_half in zip(latencies, slow, strict=True):
        groups["half" if at_half else "full"].append(latency)
    return {
        kind: (statistics.quantiles(values, n=100)[98], len(values))
        for kind, values in groups.items()
        if len(values) >= 100
    }


def _by_chance(
    platform: ProbeReport, spans: list[tuple[int, int]], first: int, last: int
) -> dict[str, float]:
    """How many of ``spans`` overlap a stall once moved by a fixed offset within the run (wrapping round
    at its end), averaged over three offsets: what overlapping a stall means nothing beyond."""
    length = max(1, last - first)
    counts: list[dict[str, int]] = []
    for offset in (length // 8, length * 3 // 8, length * 5 // 8):
        moved = [(first + (start - first + offset) % length, span) for start, span in spans]
        counts.append(platform.overlapping(moved))
    return {kind: sum(c[kind] for c in counts) / len(counts) for kind in counts[0]}


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


@contextlib.contextmanager
def pinned(redis_pid: int | None, worker_pids: list[int]) -> Iterator[None]:
    """Redis on the first core alone, the workers, the probe and this process on the others, for the
    duration (as one gives Redis a core of its own in production); nothing is pinned without
    ``redis_pid``."""
    cores = sorted(os.sched_getaffinity(0))
    if redis_pid is None or len(cores) < 2:
        yield
        return
    os.sched_setaffinity(redis_pid, cores[:1])
    for pid in [*worker_pids, 0]:
        os.sched_setaffinity(pid, cores[1:])
    try:
        yield
    finally:
        os.sched_setaffinity(redis_pid, cores)
        os.sched_setaffinity(0, cores)


GENERATOR_NICE = -5
"""The load generator's scheduling priority while it sends (where the process may raise it)."""


@contextlib.contextmanager
def ahead_in_the_queue() -> Iterator[bool]:
    """The load generator stands for clients on other machines: it gets a core before the workers and
    Redis when they contend, so that it keeps its schedule and stamps each command as it is sent. Without
    it, two workers starved it and the bisection took its falling behind for saturation (14,100/s, where
    the workers kept up with 21,900/s once it had its core). Yields whether the priority was raised."""
    try:
        os.setpriority(os.PRIO_PROCESS, 0, GENERATOR_NICE)
    except (PermissionError, AttributeError, OSError):
        yield False
        return
    try:
        yield True
    finally:
        os.setpriority(os.PRIO_PROCESS, 0, 0)


def _send_steadily(services, rate: float, seconds: float, meter: CpuMeter) -> tuple[int, CpuUse]:
    """The load generator: ``rate`` commands a second, spread over the games, each stamped as it is sent
    (``ahead_in_the_queue``). Returns how many commands the games have had, the warm-up's included, and
    the CPU time spent while sending."""
    with ahead_in_the_queue():
        return _send_on_schedule(services, rate, seconds, meter)


class CpuUse(NamedTuple):
    """The CPU time of Redis, the workers and the load generator while the load was sent: what a command
    costs each, and how much of a core each used. On two cores, their sum says how much room is left."""

    redis: float
    workers: float
    generator: float
    seconds: float
    commands: int

    def describe(self) -> str:
        parts = (("Redis", self.redis), ("workers", self.workers), ("load generator", self.generator))
        return "CPU a command: " + ", ".join(
            f"{name} {spent / max(1, self.commands) * 1e6:.1f} us ({spent / self.seconds:.0%} of a core)"
            for name, spent in parts
        )


class CpuMeter:
    """Reads the CPU time counters of Redis (``INFO cpu``), the worker processes (``/proc/PID/stat``) and
    this process (the load generator) at the start and the end of the sending."""

    def __init__(self, client, worker_pids: list[int]) -> None:
        self.client = client
        self.worker_pids = worker_pids
        self._started: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)

    def start(self) -> None:
        self._started = (*self._counters(), time.perf_counter())

    def stop(self, commands: int) -> CpuUse:
        redis_s, workers_s, own_s = self._counters()
        redis_0, workers_0, own_0, started = self._started
        return CpuUse(
            redis_s - redis_0, workers_s - workers_0, own_s - own_0, time.perf_counter() - started, commands
        )

    def _counters(self) -> tuple[float, float, float]:
        own = resource.getrusage(resource.RUSAGE_SELF)
        return (
            redis_cpu_seconds(self.client),
            sum(_process_cpu_seconds(pid) for pid in self.worker_pids),
            own.ru_utime + own.ru_stime,
        )


def redis_cpu_seconds(client) -> float:
    """The CPU time (s) Redis has used since it started, all its threads (``INFO cpu``)."""
    info = client.info("cpu")
    return float(info["used_cpu_user"]) + float(info["used_cpu_sys"])


def _process_cpu_seconds(pid: int) -> float:
    """A process's user and system time so far (``/proc/PID/stat``), 0 where it cannot be read."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


TICK_S = 0.002
"""The load generator sends a tick's commands every 2 ms."""
PLACEHOLDER_MS = 0x7FEE_DDCC_BBAA_9988
"""A submission time no clock shows. It is encoded as msgpack's 8-byte unsigned integer, as every real one
is (they are all past 2**32 ms), so a tick's messages are encoded before the clock starts and stamped by
replacing its 8 bytes (``_stamped``)."""
_PLACEHOLDER = struct.pack(">Q", PLACEHOLDER_MS)


def _send_on_schedule(services, rate: float, seconds: float, meter: CpuMeter) -> tuple[int, CpuUse]:
    # The load generator stands for clients on other machines but shares the two cores with what it
    # measures: every XADD is encoded and packed (hiredis) before the clock starts, so that sending a tick
    # costs one stamp of its bytes and one write on a wire of its own (its replies read a tick later).
    wire = Wire(services.redis)
    per_tick = max(1, round(rate * TICK_S))
    ticks = _packed_ticks(wire, per_tick, math.ceil(seconds / TICK_S) + 1)
    sent, unread = GAMES, 0
    # A collector pause between stamping a tick's commands and sending them would count as latency.
    gc.disable()
    meter.start()
    started = time.perf_counter()
    for packed in ticks:
        if time.perf_counter() - started >= seconds:
            break
        wire.send_packed(_stamped(packed, now_ms()), per_tick)
        wire.receive(unread)
        sent, unread = sent + per_tick, per_tick
        next_at = started + ((sent - GAMES) / per_tick) * TICK_S
        time.sleep(max(0.0, next_at - time.perf_counter()))
    wire.receive(unread)
    cpu = meter.stop(sent - GAMES)
    wire.close()
    gc.enable()
    return sent, cpu


def _packed_ticks(wire: Wire, per_tick: int, ticks: int) -> list[bytes]:
    """Each tick's XADDs (commands ``GAMES``, ``GAMES + 1``, ... spread over the games' inboxes), packed,
    with ``PLACEHOLDER_MS`` for their submission time."""
    inboxes = [keys.inbox(partition_for(f"b{g}", PARTITIONS)) for g in range(GAMES)]
    packed = []
    for tick in range(ticks):
        first = GAMES + tick * per_tick
        calls = [
            ("XADD", inboxes[n % GAMES], "*", "m", _inbox_bytes(n, PLACEHOLDER_MS))
            for n in range(first, first + per_tick)
        ]
        payload = wire.pack(calls)
        assert payload.count(_PLACEHOLDER) == per_tick, "the placeholder must stand only for the times"
        packed.append(payload)
    return packed


def _stamped(packed: bytes, submitted_ms: int) -> bytes:
    """A tick's packed XADDs with ``submitted_ms`` in place of the placeholder."""
    return packed.replace(_PLACEHOLDER, struct.pack(">Q", submitted_ms))


def _inbox_bytes(n: int, submitted_ms: int) -> bytes:
    message = InboxMessage(
        game_id=f"b{n % GAMES}", command_id=f"lat-{n}", seat=0, command=NOTE, submitted_ms=submitted_ms
    )
    return codec.encode_inbox(message)


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
