"""Counters the workers keep in Redis, so any gateway can serve them at ``/metrics``.

One hash, ``hm:metrics``: commands applied and rejected, events appended, dead letters, and a histogram
of the time from a command's submission to its recorded result (Prometheus-style cumulative buckets).
"""

from __future__ import annotations

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
        counts: dict[str, int] = {}
        now = now_ms()
        for record, submitted_ms in applied:
            status = "commands_applied" if record.status == "applied" else "commands_rejected"
            counts[status] = counts.get(status, 0) + 1
            counts["events_appended"] = counts.get("events_appended", 0) + max(
                0, record.last_seq - record.at_seq
            )
            latency = max(0, now - submitted_ms)
            counts["latency_ms_sum"] = counts.get("latency_ms_sum", 0) + latency
            counts["latency_count"] = counts.get("latency_count", 0) + 1
            for bound in LATENCY_BUCKETS_MS:
                if latency <= bound:
                    counts[f"latency_le_{bound}"] = counts.get(f"latency_le_{bound}", 0) + 1
        if dead:
            counts["dead_lettered"] = dead
        for field, value in counts.items():
            pipe.hincrby(METRICS_KEY, field, value)

    def read(self) -> dict[str, int]:
        raw = self.redis.hgetall(METRICS_KEY)
        return {k.decode(): int(v) for k, v in raw.items()}
