"""The platform probe that stands beside the latency runs: its stall arithmetic (a short real run is in
``tests/integration/bench/test_platform_probe_on_redis.py``)."""

from __future__ import annotations

import pytest

from tests.bench.platform_probe import ProbeReport, steal_share

QUANTILES = {"p50": 0.0, "p99": 0.0, "p99.9": 0.0, "max": 0.0}


def report(stalls: dict[str, list[tuple[int, float]]]) -> ProbeReport:
    return ProbeReport(1, QUANTILES, QUANTILES, QUANTILES, stalls)


def test_a_span_overlaps_a_stall_that_meets_it_and_not_one_beside_it() -> None:
    seen = report({"probe": [(100, 10.0), (105, 20.0), (300, 5.0)], "steal": [(50, 20.0)]})

    counts = seen.overlapping([(0, 40), (0, 60), (126, 10), (130, 200), (400, 5), (290, 9)])

    # (0, 60) meets the steal at 50-70; (130, 200) meets the probe stall at 300-305; the overlapping probe
    # stalls 100-110 and 105-125 are one window, which (126, 10) just misses.
    assert counts == {"probe": 1, "queued": 0, "steal": 1, "any": 2}


def test_a_span_inside_a_long_stall_or_around_a_short_one_overlaps_it() -> None:
    seen = report({"queued": [(1_000, 500.0), (2_000, 1.0)]})

    counts = seen.overlapping([(1_200, 10), (1_990, 20), (1_510, 100)])

    assert counts["queued"] == 2
    assert counts["any"] == 2


def test_steal_share_is_the_steal_column_over_all_time_and_none_without_counters() -> None:
    before = [100, 0, 10, 800, 0, 0, 0, 40, 0, 0]
    after = [150, 0, 20, 1700, 0, 0, 0, 70, 0, 0]

    assert steal_share(before, after) == pytest.approx(30 / 990)
    assert steal_share([], after) is None
