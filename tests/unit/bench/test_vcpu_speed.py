"""The virtual CPUs' speed sampler: which CPU ran at half speed when, and a short real run."""

from __future__ import annotations

import os
import time

from tests.bench.latency_figures import _p99_by_speed
from tests.bench.vcpu_speed import RunningSampler, SpeedSamples, sample

FAST, HALF = 0.147, 0.294


def test_a_sample_twice_as_slow_as_the_fastest_of_the_run_is_slow_on_either_cpu() -> None:
    speeds = SpeedSamples(
        {0: [(0, FAST), (500, HALF), (1000, FAST)], 1: [(0, HALF), (500, HALF), (1000, HALF)]}
    )

    # cpu1 ran at half speed all along: the fastest sample of any CPU is what full speed is
    assert speeds.slow_share() == {0: 1 / 3, 1: 1.0}
    assert "cpu0 33%, cpu1 100%" in speeds.summary()


def test_a_moment_is_slow_when_the_nearest_sample_of_some_cpu_was_slow() -> None:
    speeds = SpeedSamples(
        {0: [(0, FAST), (500, HALF), (1000, FAST)], 1: [(0, FAST), (500, FAST), (1000, FAST)]}
    )

    assert not speeds.any_slow_at(100)  # nearest: the fast samples at 0
    assert speeds.any_slow_at(400)  # nearest on cpu0: the slow one at 500
    assert speeds.any_slow_at(740)
    assert not speeds.any_slow_at(760)  # nearer the fast one at 1000
    assert not speeds.any_slow_at(5_000)  # past the last sample: the last one counts


def test_a_short_real_run_samples_every_cpu_and_leaves_the_affinity_as_it_was() -> None:
    cpus = os.sched_getaffinity(0)

    speeds = sample(0.6)

    assert set(speeds.by_cpu) == cpus
    assert all(
        len(samples) >= 1 and all(work > 0 for _, work in samples) for samples in speeds.by_cpu.values()
    )
    assert os.sched_getaffinity(0) == cpus


def test_a_run_s_p99_is_split_by_whether_a_cpu_ran_at_half_speed_when_each_command_was_submitted() -> None:
    speeds = SpeedSamples(
        {0: [(0, FAST), (1_000, HALF), (2_000, FAST)], 1: [(0, FAST), (1_000, FAST), (2_000, FAST)]}
    )
    at_full = [(t, 5) for t in range(0, 400, 2)]  # nearest samples at 0: both fast
    at_half = [(t, 30) for t in range(800, 1_200, 2)]  # nearest on cpu0: the slow one at 1000

    split = _p99_by_speed(at_full + at_half, speeds)

    assert split == {"full": (5, 200), "half": (30, 200)}
    assert _p99_by_speed(at_full + at_half[:99], speeds) == {"full": (5, 200)}  # under 100: no figure


def test_a_sampler_beside_a_run_is_sampling_once_started_and_stops_when_asked() -> None:
    sampler = RunningSampler()  # returns once the process says it samples: its start-up is behind it
    time.sleep(0.7)
    asked = time.monotonic()

    speeds = sampler.samples()

    assert sampler.process.returncode == 0
    assert time.monotonic() - asked < 30.0  # stops when asked, not after a fixed length (load may delay it)
    # one sample of each CPU at least: it samples before it first looks whether it is asked to stop (a second
    # one, 0.5 s later, may not come in time on a loaded machine: it failed a full run at load average 20)
    assert set(speeds.by_cpu) == os.sched_getaffinity(0)
    assert all(len(samples) >= 1 for samples in speeds.by_cpu.values())
