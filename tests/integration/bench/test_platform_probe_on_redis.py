"""The platform probe that stands beside the latency runs, run for real beside a Redis (its stall
arithmetic is in ``tests/unit/bench/test_platform_probe.py``)."""

from __future__ import annotations

import os
import sys
import time

import pytest

from tests.bench.platform_probe import KINDS, RunningProbe, probe


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
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
