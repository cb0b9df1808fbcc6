"""Counters the workers keep in Redis, so any gateway can serve them at ``/metrics``.

One hash, ``hm:metrics``: commands applied and rejected, events appended, dead letters, and a histogram
of the time from a command's submission to its recorded result (Prometheus-style cumulative buckets).
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from typing import Any

import redis

from events.envelope import CommandRecord
from events.store import now_ms

METRICS_KEY = "hm:metrics"
LATENCY_BUCKETS_MS = (1, 2, 5, 10, 20, 50, 100, 250, 500, 1000, 5000)


class WorkerMetrics:
    def __init__(self, client: redis.Redis) -> None:
        self.redis: Any = client  # redis-py types replies loosely; ours are bytes (decode_responses off)

    def queue(self, pipe: Any, applied: Sequence[tuple[CommandRecord, int]], dead: int) -> None:
        """Queue the counters of one settled batch: ``applied`` is (record, submitted_ms) pairs."""
        now = now_ms()
        counts = dict.fromkeys(("commands_applied", "commands_rejected", "events_appended"), 0)
        latency_sum = 0
        in_bucket = [0] * (len(LATENCY_BUCKETS_MS) + 1)
        for record, submitted_ms in applied:
            if record.status == "applied":
                counts["commands_applied"] += 1
                counts["events_appended"] += max(0, record.last_seq - record.at_seq)
            else:
                counts["commands_rejected"] += 1
            latency = max(0, now - submitted_ms)
            latency_sum += latency
            in_bucket[bisect.bisect_left(LATENCY_BUCKETS_MS, latency)] += 1
        if applied:
            counts["latency_ms_sum"] = latency_sum
            counts["latency_count"] = len(applied)
        cumulative = 0
        for bound, n in zip(LATENCY_BUCKETS_MS, in_bucket, strict=False):
            cumulative += n
            counts[f"latency_le_{bound}"] = cumulative
        counts["dead_lettered"] = dead
        for field, value in counts.items():
            if value:
                pipe.hincrby(METRICS_KEY, field, value)

    def read(self) -> dict[str, int]:
        raw = self.redis.hgetall(METRICS_KEY)
        return {k.decode(): int(v) for k, v in raw.items()}
