"""How still and how fast the machine itself is, measured beside a latency run (a "hiccup meter", as
jHiccup).

Run as ``python -m tests.bench.platform_probe REDIS_URL SECONDS``: for that long it sleeps 1 ms and sends
one ``PING``, over and over, and every 100th time does a fixed piece of work; it prints as JSON how late
each sleep woke, how long each ``PING`` and each piece of work took. A sleep that wakes many milliseconds
late was kept from a core: by the other processes, or by the hypervisor taking the virtual CPU away
(steal). The fixed work shows how fast the machine runs right now: on a shared virtual machine that
changes from minute to minute (measured here at rest: 19-58 ms for the same work, mostly 26-36), and a
rate that was half of the saturating load during the bisection is more than half a minute later, on a
slower machine. No latency of the pipeline, which hops between three processes, can be steadier than
the platform; the bench prints both side by side.

``Stalls`` and ``steal_share`` are used by ``bench_foundation``.
"""

from __future__ import annotations

import gc
import hashlib
import json
import subprocess
import sys
import time
from pathlib import Path

import msgspec
import redis

STALL_MS = 5.0
"""A sleep that woke at least this late counts as a stall of the platform."""


class ProbeReport(msgspec.Struct):
    """What the probe saw: lateness and PING quantiles (ms), and each stall as (wall clock ms, ms late)."""

    samples: int
    sleep_late: dict[str, float]
    ping: dict[str, float]
    work: dict[str, float]
    """How long the fixed piece of work (``fixed_work``) took, ms."""
    stalls: list[tuple[int, float]]

    def summary(self) -> str:
        late, ping = self.sleep_late, self.ping
        return (
            f"platform: a 1 ms sleep woke late p99 {late['p99']:.1f} / p99.9 {late['p99.9']:.1f} / max "
            f"{late['max']:.0f} ms, {len(self.stalls)} stalls >= {STALL_MS:.0f} ms; PING p99 {ping['p99']:.1f} "
            f"/ max {ping['max']:.0f} ms; the fixed work took {self.work['p50']:.2f} ms (median)"
        )

    def overlapping(self, spans: list[tuple[int, int]]) -> int:
        """How many of ``spans`` (start ms, length ms) overlap a stall."""
        windows = sorted((at, at + late + 1.0) for at, late in self.stalls)
        count = 0
        for start, length in spans:
            if any(w0 <= start + length and start <= w1 for w0, w1 in windows):
                count += 1
        return count


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


def probe(url: str, seconds: float) -> ProbeReport:
    """Sleep 1 ms and PING, and now and then time the fixed work, for ``seconds``."""
    client = redis.Redis.from_url(url)
    client.ping()
    gc.disable()
    late: list[float] = []
    pings: list[float] = []
    work: list[float] = []
    stalls: list[tuple[int, float]] = []
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        wall_ms, started = time.time() * 1000, time.perf_counter()
        time.sleep(0.001)
        woke = time.perf_counter()
        lateness = (woke - started) * 1000 - 1.0
        late.append(lateness)
        if lateness >= STALL_MS:
            stalls.append((int(wall_ms), round(lateness, 2)))
        client.ping()
        pings.append((time.perf_counter() - woke) * 1000)
        if len(late) % 100 == 0:
            work.append(fixed_work())
    client.close()
    return ProbeReport(len(late), _quantiles(late), _quantiles(pings), _quantiles(work), stalls)


class RunningProbe:
    """The probe in a process of its own (it must not share this process's interpreter lock)."""

    def __init__(self, url: str, seconds: float) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.bench.platform_probe", url, str(seconds)],
            stdout=subprocess.PIPE,
            cwd=Path(__file__).resolve().parents[2],
        )

    def report(self) -> ProbeReport:
        out, _ = self.process.communicate(timeout=120)
        return msgspec.json.decode(out, type=ProbeReport)


def cpu_ticks() -> list[int]:
    """The machine's CPU time counters (``/proc/stat``), or nothing where there are none."""
    try:
        return [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    except OSError:
        return []


def steal_share(before: list[int], after: list[int]) -> float | None:
    """The share of CPU time the hypervisor took from this virtual machine between two ``cpu_ticks``."""
    if len(before) < 8 or len(after) < 8:
        return None
    total = sum(after) - sum(before)
    return (after[7] - before[7]) / total if total else None


def main(argv: list[str]) -> None:
    report = probe(argv[0], float(argv[1]))
    sys.stdout.write(json.dumps(msgspec.to_builtins(report)))


if __name__ == "__main__":
    main(sys.argv[1:])
