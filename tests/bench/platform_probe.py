"""How still and how fast the machine itself is, measured beside a latency run (a "hiccup meter", as
jHiccup, with the kernel's own accounts beside it). It is not free: on two cores it lengthened the tail it
was to explain (see ``bench_foundation``), so the bench runs it only in a run paired with the latency runs.

Run as ``python -m tests.bench.platform_probe REDIS_URL SECONDS [PID ...]``: for that long it sleeps
1 ms and sends one ``PING``, over and over, every 100th time does a fixed piece of work, and keeps watch
on three kinds of stall:

- ``probe``: its own 1 ms sleep woke at least ``STALL_MS`` late (it was kept from a core);
- ``queued``: a watched process (Redis, the workers: the PIDs given) was ready to run but waited for a
  core at least ``STALL_MS`` within ``WINDOW_MS`` (the kernel's ``/proc/PID/schedstat`` run delay: the
  two cores are shared by Redis, the workers, the load generator and the probe);
- ``steal``: the hypervisor took a virtual CPU away (``/proc/stat``, counted in 10 ms ticks).

The fixed work shows how fast the machine runs right now: on a shared virtual machine that changes from
minute to minute (measured here at rest: 19-58 ms for the same larger piece of work, mostly 26-36). No
latency of the pipeline, which hops between three processes, can be steadier than the platform; the bench
prints both, and how many slow commands overlapped a stall of each kind.

``RunningProbe``, ``cpu_ticks`` and ``steal_share`` are used by ``bench_foundation``, ``fixed_work`` also by
``vcpu_speed``.
"""

from __future__ import annotations

import bisect
import gc
import hashlib
import math
import select
import subprocess
import sys
import time
from collections import deque
from pathlib import Path
from typing import IO

import msgspec
import redis

STALL_MS = 5.0
WINDOW_MS = 10.0
TICK_MS = 10.0
"""``/proc/stat`` counts in ticks of 1/100 s."""
KINDS = ("probe", "queued", "steal")


class ProbeReport(msgspec.Struct):
    """What the probe saw: quantiles (ms) of its sleeps' lateness, its PINGs and its fixed work, and the
    stalls of each kind as (wall clock ms at the start, length ms)."""

    samples: int
    sleep_late: dict[str, float]
    ping: dict[str, float]
    work: dict[str, float]
    """How long the fixed piece of work (``fixed_work``) took, ms."""
    stalls: dict[str, list[tuple[int, float]]]

    def summary(self) -> str:
        late, ping = self.sleep_late, self.ping
        counts = ", ".join(f"{kind} {len(self.stalls.get(kind, []))}" for kind in KINDS)
        return (
            f"platform: a 1 ms sleep woke late p99 {late['p99']:.1f} / p99.9 {late['p99.9']:.1f} / max "
            f"{late['max']:.0f} ms; PING p99 {ping['p99']:.1f} / max {ping['max']:.0f} ms; the fixed work "
            f"took {self.work['p50']:.2f} ms (median); stalls ({counts})"
        )

    def overlapping(self, spans: list[tuple[int, int]]) -> dict[str, int]:
        """How many of ``spans`` (start ms, length ms) overlap a stall, by kind and of any kind."""
        merged = {kind: _merged(self.stalls.get(kind, [])) for kind in KINDS}
        counts = dict.fromkeys([*KINDS, "any"], 0)
        for start, length in spans:
            hit = False
            for kind in KINDS:
                if _overlaps(merged[kind], start, start + length):
                    counts[kind] += 1
                    hit = True
            counts["any"] += hit
        return counts


def _merged(stalls: list[tuple[int, float]]) -> tuple[list[float], list[float]]:
    """The stalls as disjoint windows, sorted: their starts and their ends."""
    starts: list[float] = []
    ends: list[float] = []
    for at, span in sorted(stalls):
        if ends and at <= ends[-1]:
            ends[-1] = max(ends[-1], at + span)
        else:
            starts.append(at)
            ends.append(at + span)
    return starts, ends


def _overlaps(windows: tuple[list[float], list[float]], start: float, end: float) -> bool:
    """Whether [start, end] meets one of the disjoint, sorted ``windows``."""
    starts, ends = windows
    i = bisect.bisect_right(starts, end) - 1  # the last window that starts no later than ``end``
    return i >= 0 and ends[i] >= start


def _quantiles(values: list[float]) -> dict[str, float]:
    ordered = sorted(values) or [0.0]
    n = len(ordered)
    return {
        "p50": ordered[n // 2],
        "p99": ordered[min(n - 1, int(n * 0.99))],
        "p99.9": ordered[min(n - 1, int(n * 0.999))],
        "max": ordered[-1],
    }


def fixed_work() -> float:
    """The time (ms) of a fixed, CPU-bound piece of work: hashing and small objects, as a worker does."""
    started = time.perf_counter()
    digest = b"x" * 64
    for i in range(300):
        digest = hashlib.sha256(digest).digest()
        _ = {i: digest, "seq": str(i)}
    return (time.perf_counter() - started) * 1000


def _run_delay_ms(pid: int) -> float | None:
    """How long (ms) a process has waited, ready, for a core since it started; ``None`` once it is gone."""
    try:
        return int(Path(f"/proc/{pid}/schedstat").read_text().split()[1]) / 1e6
    except (OSError, IndexError, ValueError):
        return None


def _cpu_counters() -> dict[str, list[int]]:
    """The CPU time counters of ``/proc/stat`` by line (``cpu`` for the machine, ``cpu0``... for each
    virtual CPU); empty where there is no such file."""
    try:
        lines = Path("/proc/stat").read_text().splitlines()
    except OSError:
        return {}
    return {
        name: [int(v) for v in values]
        for name, *values in (line.split() for line in lines if line.startswith("cpu"))
    }


def _steal_per_cpu() -> list[int]:
    """Each virtual CPU's steal ticks."""
    return [values[7] for name, values in _cpu_counters().items() if name != "cpu"]


class _QueueWatch:
    """Finds the moments a watched process waited at least ``STALL_MS`` for a core within ``WINDOW_MS``."""

    def __init__(self, pids: list[int]) -> None:
        self.history: dict[int, deque[tuple[float, float]]] = {pid: deque() for pid in pids}
        self.stalls: list[tuple[int, float]] = []

    def sample(self, wall_ms: float) -> None:
        for pid, history in self.history.items():
            delay = _run_delay_ms(pid)
            if delay is None:
                continue
            history.append((wall_ms, delay))
            while history and history[0][0] < wall_ms - WINDOW_MS:
                history.popleft()
            waited = delay - history[0][1]
            if waited >= STALL_MS:
                self.stalls.append((int(history[0][0]), round(wall_ms - history[0][0], 2)))
                history.clear()
                history.append((wall_ms, delay))


def probe(url: str, seconds: float | None, pids: list[int], stop: IO[bytes] | None = None) -> ProbeReport:
    """Sleep 1 ms and PING, time the fixed work now and then, and watch for stalls, for ``seconds``, or
    until ``stop`` (a pipe) can be read: its writer has something to say or has closed it."""
    client = redis.Redis.from_url(url)
    client.ping()
    collecting = gc.isenabled()
    gc.disable()  # a collection would pass for a stall of the machine
    late: list[float] = []
    pings: list[float] = []
    work: list[float] = []
    stalls: dict[str, list[tuple[int, float]]] = {kind: [] for kind in KINDS}
    queued = _QueueWatch(pids)
    steal = _steal_per_cpu()
    deadline = time.perf_counter() + seconds if seconds is not None else math.inf
    while time.perf_counter() < deadline:
        wall_ms, started = time.time() * 1000, time.perf_counter()
        time.sleep(0.001)
        woke = time.perf_counter()
        lateness = (woke - started) * 1000 - 1.0
        late.append(lateness)
        if lateness >= STALL_MS:
            stalls["probe"].append((int(wall_ms), round(lateness + 1.0, 2)))
        client.ping()
        pings.append((time.perf_counter() - woke) * 1000)
        now_ms = time.time() * 1000
        queued.sample(now_ms)
        if len(late) % 10 == 0:
            steal = _record_steal(steal, now_ms, stalls["steal"])
        if len(late) % 100 == 0:
            work.append(fixed_work())
            if stop is not None and select.select([stop], [], [], 0)[0]:
                break
    client.close()
    if collecting:
        gc.enable()
    stalls["queued"] = queued.stalls
    return ProbeReport(len(late), _quantiles(late), _quantiles(pings), _quantiles(work), stalls)


def _record_steal(before: list[int], now_ms: float, into: list[tuple[int, float]]) -> list[int]:
    """Note the ticks stolen since ``before`` as stalls ending now; returns the new counts."""
    after = _steal_per_cpu()
    for old, new in zip(before, after, strict=False):
        if new > old:
            span = (new - old) * TICK_MS
            # a tick is counted when it ends; it may have begun up to one sampling period earlier
            into.append((int(now_ms - span - TICK_MS), span + TICK_MS))
    return after


class RunningProbe:
    """The probe in a process of its own (it must not share this process's interpreter lock), watching
    the processes ``pids`` wait for a core."""

    def __init__(self, url: str, seconds: float | None, pids: list[int] | None = None) -> None:
        """Probe for ``seconds``, or (``None``) until ``report``, so that the probe's exit, which costs a
        core tens of milliseconds, falls after the run it watches (see ``vcpu_speed.RunningSampler``)."""
        duration = "until-stopped" if seconds is None else str(seconds)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.bench.platform_probe", url, duration, *map(str, pids or [])],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            cwd=Path(__file__).resolve().parents[2],
        )

    def report(self) -> ProbeReport:
        """Stop the probe (if it runs until stopped) and return what it saw."""
        out, _ = self.process.communicate(timeout=120)  # closing its stdin is its signal to stop
        return msgspec.json.decode(out, type=ProbeReport)


def cpu_ticks() -> list[int]:
    """The machine's CPU time counters (``/proc/stat``), or nothing where there are none."""
    return _cpu_counters().get("cpu", [])


def steal_share(before: list[int], after: list[int]) -> float | None:
    """The share of CPU time the hypervisor took from this virtual machine between two ``cpu_ticks``."""
    if len(before) < 8 or len(after) < 8:
        return None
    total = sum(after) - sum(before)
    return (after[7] - before[7]) / total if total else None


def main(argv: list[str]) -> None:
    """``python -m tests.bench.platform_probe URL SECONDS|until-stopped [PID ...]``."""
    seconds = None if argv[1] == "until-stopped" else float(argv[1])
    stop = sys.stdin.buffer if seconds is None else None  # a timed probe runs its time out
    report = probe(argv[0], seconds, [int(pid) for pid in argv[2:]], stop=stop)
    sys.stdout.buffer.write(msgspec.json.encode(report))


if __name__ == "__main__":
    main(sys.argv[1:])
