"""The latency bench's CPU meter (``tests/bench/load_generator.py``) on a real Redis: it counts what this
process and Redis used for the commands sent."""

from __future__ import annotations

import os

from tests.bench.load_generator import (
    CpuMeter,
)


def test_the_cpu_meter_counts_this_process_and_redis(redis_client) -> None:
    meter = CpuMeter(redis_client, [os.getpid()])
    meter.start()
    for _ in range(2_000):
        redis_client.ping()

    used = meter.stop(commands=2_000)

    assert used.commands == 2_000
    assert used.generator > 0  # this process sent the PINGs
    assert used.redis > 0  # and Redis answered them
    assert used.workers > 0  # the process given as a worker is this one
    assert used.seconds > 0
    assert "us (" in used.describe()
