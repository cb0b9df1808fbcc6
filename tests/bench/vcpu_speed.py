"""How fast each virtual CPU runs, sampled beside a latency run at next to no cost.

On this machine each of the two virtual CPUs runs, at any moment, at one of two speeds exactly twice apart
(the probe's fixed work takes 0.147 ms or 0.29 ms), each on its own and changing within seconds; the
hypervisor counts none of it as steal (most likely a busy hyperthread beside ours on the host). Half of a
saturating load measured while both ran at full speed is the whole of it while Redis's CPU runs at half.

Run as ``python -m tests.bench.vcpu_speed SECONDS`` (without SECONDS: until its stdin closes): every
``PERIOD_S`` it pins itself to each CPU in turn and times the fixed work there (the least of ``REPEATS``:
being kept from the core only adds time), about 0.6 ms of CPU every 500 ms for each CPU, where the platform
probe wakes a thousand times a second. (Four times that, sampled every 250 ms, may have cost a little: p99
medians 11.5 against 10 ms in four alternating pairs at 16,000/s.) It prints the samples; ``SpeedSamples``
says which CPU was slow when.
"""

from __future__ import annotations

import bisect
import math
import os
import select
import subprocess
import sys
import time
from collections.abc import Iterable
from pathlib import Path
from typing import IO

import msgspec

from tests.bench.platform_probe import fixed_work

PERIOD_S = 0.5
READY = b"sampling\n"
REPEATS = 2
SLOW = 1.4
"""A sample is slow when its work took this many times the fastest sample of the run (on any CPU: at full
speed they are alike, and a CPU may run at half speed for a whole run)."""


class SpeedSamples(msgspec.Struct):
    """Per CPU, the samples taken: (wall clock ms, the fixed work's time in ms)."""

    by_cpu: dict[int, list[tuple[int, float]]]

    def slow_share(self) -> dict[int, float]:
        """For each CPU, the share of its samples that ran slow."""
        threshold = self._threshold()
        return {
            cpu: sum(work > threshold for _, work in samples) / len(samples)
            for cpu, samples in self.by_cpu.items()
            if samples
        }

    def slow_at(self, moments: Iterable[int]) -> list[bool]:
        """For each moment (wall clock ms), whether a CPU ran slow then: its sample nearest in time was slow."""
        threshold = self._threshold()
        sampled = [samples for samples in self.by_cpu.values() if samples]
        return [any(_nearest(samples, at_ms)[1] > threshold for samples in sampled) for at_ms in moments]

    def any_slow_at(self, at_ms: int) -> bool:
        """Whether a CPU ran slow at ``at_ms`` (``slow_at`` for one moment)."""
        return self.slow_at([at_ms])[0]

    def summary(self) -> str:
        shares = ", ".join(f"cpu{cpu} {share:.0%}" for cpu, share in sorted(self.slow_share().items()))
        return f"share of the run each CPU ran at half speed: {shares}"

    def _threshold(self) -> float:
        """The time (ms) above which a sample is slow: ``SLOW`` times the fastest of the run."""
        return SLOW * min((w for samples in self.by_cpu.values() for _, w in samples), default=0.0)


def _nearest(samples: list[tuple[int, float]], at_ms: int) -> tuple[int, float]:
    """Of time-ordered ``samples``, the one nearest in time to ``at_ms``."""
    i = bisect.bisect_left(samples, (at_ms, 0.0))
    return min(samples[max(0, i - 1) : i + 1], key=lambda sample: abs(sample[0] - at_ms))


def sample(seconds: float | None = None, stop: IO[bytes] | None = None) -> SpeedSamples:
    """Time the fixed work on each CPU in turn every ``PERIOD_S``, for ``seconds``, or until ``stop`` (a
    pipe) can be read: its writer has something to say or has closed it."""
    cpus = sorted(os.sched_getaffinity(0))
    by_cpu: dict[int, list[tuple[int, float]]] = {cpu: [] for cpu in cpus}
    deadline = time.monotonic() + seconds if seconds is not None else math.inf
    try:
        while time.monotonic() < deadline:
            for cpu in cpus:
                os.sched_setaffinity(0, {cpu})
                work = min(fixed_work() for _ in range(REPEATS))
                by_cpu[cpu].append((int(time.time() * 1000), round(work, 4)))
            if stop is None:
                time.sleep(PERIOD_S)
            elif select.select([stop], [], [], PERIOD_S)[0]:
                break
    finally:
        os.sched_setaffinity(0, cpus)
    return SpeedSamples(by_cpu)


class RunningSampler:
    """The sampler in a process of its own, beside a run, from before the run's first command to after its
    last one is appended: ``samples`` stops it. A process of Python's that starts or exits costs a core tens
    of milliseconds; one that exited while the last commands of a run were in flight put 36-877 of them over
    20 ms (four runs at 24,000/s; none without the sampler), enough to move a p99 across 20 ms."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.bench.vcpu_speed"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            cwd=Path(__file__).resolve().parents[2],
        )
        assert self.process.stdout is not None
        if self.process.stdout.readline() != READY:  # started up: its imports are behind it
            raise RuntimeError("the vCPU speed sampler did not start")

    def samples(self) -> SpeedSamples:
        """Stop the sampler and return what it saw."""
        out, _ = self.process.communicate(timeout=120)  # closing its stdin is its signal to stop
        return msgspec.json.decode(out, type=SpeedSamples)


def main(argv: list[str]) -> None:
    """``python -m tests.bench.vcpu_speed [SECONDS]``: sample for that long, or until stdin closes."""
    if argv:
        speeds = sample(float(argv[0]))
    else:
        sys.stdout.buffer.write(READY)
        sys.stdout.buffer.flush()
        speeds = sample(stop=sys.stdin.buffer)
    sys.stdout.buffer.write(msgspec.json.encode(speeds))


if __name__ == "__main__":
    main(sys.argv[1:])
