"""The bench's closing verdict against the foundation issue's targets."""

from __future__ import annotations

from tests.bench.latency_figures import HalfLoad, Latency, verdict
from tests.bench.load_generator import CpuUse
from tests.bench.vcpu_speed import SpeedSamples


def _run(setup: str, p99: float, full_speed_p99: float | None, redis_cpu_s: float) -> HalfLoad:
    by_speed = {"full": (full_speed_p99, 5_000)} if full_speed_p99 is not None else {}
    cpu = CpuUse(redis=redis_cpu_s, workers=5.0, generator=0.4, seconds=8.0, commands=150_000)
    figures = Latency(3.0, p99, 150_000, 0, {}, {}, None, 0.0, cpu, SpeedSamples({}), by_speed)
    return HalfLoad(setup, 18_500.0, figures)


def test_the_verdict_counts_the_runs_under_20_ms_by_set_up_and_says_which_ratio_misses_a_third() -> None:
    runs = [
        _run("1 worker", 15.0, 10.0, 5.6),
        _run("1 worker", 74.0, None, 6.0),
        _run("1 worker", 20.0, 20.0, 5.8),  # 20.0 is not under 20
        _run("2 workers", 14.0, 8.0, 5.5),
    ]

    lines = verdict({"1 worker": 0.32, "2 workers": 0.49}, runs).splitlines()

    assert lines[1] == "  end-to-end at least 1/3 of raw XADD, 1 worker: 0.32 -> NOT met"
    assert lines[2] == "  end-to-end at least 1/3 of raw XADD, 2 workers: 0.49 -> met"
    assert lines[3] == (
        "  p99 under 20 ms at half of the saturating steady load, 1 worker (18,500/s): 15, 74, 20 ms -> 1 of 3;"
        " while both CPUs ran at full speed 10, -, 20 ms; Redis used 70%-75% of a core"
    )
    assert lines[4].endswith(
        "14 ms -> 1 of 1; while both CPUs ran at full speed 8 ms; Redis used 69%-69% of a core"
    )
