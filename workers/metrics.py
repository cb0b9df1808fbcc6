"""Counters the workers keep in Redis, so any gateway can serve them at ``/metrics``.

One hash, ``hm:metrics``: commands applied and rejected, events appended, dead letters, and a histogram
of the time from a command's submission to its recorded result (Prometheus-style cumulative buckets).
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from typing import Any

from events import keys
from events.envelope import CommandRecord
from events.store import now_ms

METRICS_KEY = keys.METRICS
LATENCY_BUCKETS_MS = (1, 2, 5, 10, 20, 50, 100, 250, 500, 1000, 5000)
_BUCKET_FIELDS = tuple(f"latency_le_{bound}" for bound in LATENCY_BUCKETS_MS)


class WorkerMetrics:
    """Counts in the worker's memory, added to the Redis hash now and then (``queue_flush``)."""

    def __init__(self) -> None:
        self._counts: dict[str, int] = {}

    def count(self, applied: Sequence[tuple[CommandRecord, int]], dead: int) -> None:
        """Count one settled batch: ``applied`` is (record, submitted_ms) pairs."""
        now = now_ms()
        counts = self._counts
        latency_sum, rejected, events = 0, 0, 0
        in_bucket = [0] * (len(LATENCY_BUCKETS_MS) + 1)
        for record, submitted_ms in applied:
            if record.status == "applied":
                events += max(0, record.last_seq - record.at_seq)
            else:
                rejected += 1
            latency = max(0, now - submitted_ms)
            latency_sum += latency
            in_bucket[bisect.bisect_left(LATENCY_BUCKETS_MS, latency)] += 1
        added = {
            "commands_applied": len(applied) - rejected,
            "commands_rejected": rejected,
            "events_appended": events,
            "latency_ms_sum": latency_sum,
            "latency_count": len(applied),
            "dead_lettered": dead,
        }
        cumulative = 0
        for field, n in zip(_BUCKET_FIELDS, in_bucket, strict=False):
            cumulative += n
            added[field] = cumulative
        for field, value in added.items():
            if value:
                counts[field] = counts.get(field, 0) + value

    def queue_flush(self, pipe: Any) -> None:
        """Queue the counts gathered since the last flush (``HINCRBY`` each), and start again from zero."""
        for field, value in self._counts.items():
            pipe.hincrby(METRICS_KEY, field, value)
        self._counts = {}
