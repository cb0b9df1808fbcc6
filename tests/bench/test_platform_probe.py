"""The platform probe that stands beside the latency runs: its stall arithmetic, and a short real run."""

from __future__ import annotations

import os
import sys
import time

import pytest

from tests.bench.platform_probe import KINDS, ProbeReport, RunningProbe, probe, steal_share

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


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.redis
def test_a_short_probe_against_a_real_redis_reports_every_kind(redis_url: str) -> None:
    seen = probe(redis_url, 0.3, [os.getpid()])

    assert (
        seen.samples > 5
    )  # a 1 ms sleep and a PING, over and over, for 0.3 s (far fewer on a loaded machine)
    assert set(seen.stalls) == set(KINDS)
    assert 0 < seen.ping["p50"] <= seen.ping["max"]
    assert 0 <= seen.work["p50"] <= seen.work["max"]
    assert seen.sleep_late["p50"] <= seen.sleep_late["max"]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.redis
def test_a_probe_beside_a_run_probes_until_asked_for_its_report(redis_url: str) -> None:
    running = RunningProbe(redis_url, None, [os.getpid()])
    time.sleep(1.0)
    asked = time.monotonic()

    seen = running.report()

    assert running.process.returncode == 0
    assert time.monotonic() - asked < 10.0  # stops when asked (a loaded machine may take a few periods)
    assert seen.samples > 5


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_timed_probe_runs_its_time_out_even_when_its_report_is_asked_for_at_once(redis_url: str) -> None:
    started = time.monotonic()

    seen = RunningProbe(redis_url, 0.8).report()

    assert time.monotonic() - started >= 0.8
    assert seen.samples > 10
