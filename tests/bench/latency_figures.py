"""The foundation bench's latency figures: a run's percentiles, the commands slower than 20 ms set against
the platform's stalls and CPU speed drops, and the verdict against the foundation issue's targets."""

from __future__ import annotations

import statistics
from typing import NamedTuple

from tests.bench.load_generator import CpuUse
from tests.bench.platform_probe import ProbeReport
from tests.bench.vcpu_speed import SpeedSamples


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
