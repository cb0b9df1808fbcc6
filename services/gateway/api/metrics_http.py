"""``GET /metrics`` in the Prometheus text format.

The fold workers' counters live in Redis (``hm:metrics``, see ``workers/metrics.py``), so every gateway
serves the same totals; the gateway adds its own: open WebSockets, watched games, fan-out lag, frames,
resyncs and requests. Rates (commands/s) are Prometheus's ``rate()`` of the counters; the gateway also
exports ``harbormaster_commands_per_second`` measured between two scrapes, for a glance without Prometheus.
"""

from __future__ import annotations

import time

from starlette.requests import Request
from starlette.responses import Response

from events import keys
from services.gateway.context import Gateway, gateway_of
from workers.metrics import LATENCY_BUCKETS_MS, METRICS_KEY

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


class Rate:
    """Commands per second between two readings of the applied+rejected counter."""

    def __init__(self) -> None:
        self.last: tuple[float, int] | None = None
        self.value = 0.0

    def update(self, total: int) -> float:
        now = time.monotonic()
        if self.last is not None and now > self.last[0]:
            self.value = max(0.0, (total - self.last[1]) / (now - self.last[0]))
        self.last = (now, total)
        return self.value


_rate = Rate()


def _metric(lines: list[str], name: str, kind: str, help_text: str, samples: list[tuple[str, float]]) -> None:
    lines.append(f"# HELP {name} {help_text}")
    lines.append(f"# TYPE {name} {kind}")
    for labels, value in samples:
        lines.append(f"{name}{labels} {value:g}")


async def _worker_counters(gateway: Gateway) -> dict[str, int]:
    raw = await gateway.redis.hgetall(METRICS_KEY)
    return {k.decode(): int(v) for k, v in raw.items()}


async def _backlog(gateway: Gateway) -> int:
    pipe = gateway.redis.pipeline(transaction=False)
    for partition in range(gateway.services.bus.partitions):
        pipe.xlen(keys.inbox(partition))
    return sum(int(n) for n in await pipe.execute())


def fold_metrics(lines: list[str], counters: dict[str, int]) -> None:
    """The workers' counters: commands by outcome, events, dead letters, fold latency histogram."""
    applied, rejected = counters.get("commands_applied", 0), counters.get("commands_rejected", 0)
    _metric(lines, "harbormaster_commands_total", "counter", "Commands decided by the fold workers.",
            [('{status="applied"}', applied), ('{status="rejected"}', rejected)])  # fmt: skip
    _metric(lines, "harbormaster_command_rejections_total", "counter", "Commands the rules refused.",
            [("", rejected)])  # fmt: skip
    _metric(lines, "harbormaster_commands_per_second", "gauge",
            "Commands decided per second since the previous scrape.", [("", _rate.update(applied + rejected))])  # fmt: skip
    _metric(lines, "harbormaster_events_appended_total", "counter", "Events appended.",
            [("", counters.get("events_appended", 0))])  # fmt: skip
    _metric(lines, "harbormaster_dead_letters_total", "counter", "Inbox messages dead-lettered.",
            [("", counters.get("dead_lettered", 0))])  # fmt: skip
    buckets = [(f'{{le="{b / 1000:g}"}}', counters.get(f"latency_le_{b}", 0)) for b in LATENCY_BUCKETS_MS]
    count = counters.get("latency_count", 0)
    # Its header only: the histogram's samples are whole counts, written as they are (never %g's 1e+06).
    _metric(lines, "harbormaster_fold_latency_seconds", "histogram",
            "From a command's submission to its recorded result.", [])  # fmt: skip
    for labels, value in [*buckets, ('{le="+Inf"}', count)]:
        lines.append(f"harbormaster_fold_latency_seconds_bucket{labels} {value}")
    lines.append(f"harbormaster_fold_latency_seconds_sum {counters.get('latency_ms_sum', 0) / 1000:g}")
    lines.append(f"harbormaster_fold_latency_seconds_count {count}")


def gateway_metrics(lines: list[str], gateway: Gateway, backlog: int) -> None:
    """This gateway's own gauges and counters."""
    stats, hub = gateway.stats, gateway.hub.stats
    _metric(lines, "harbormaster_stream_lag_commands", "gauge",
            "Commands waiting in the inbox partitions (not yet folded).", [("", backlog)])  # fmt: skip
    _metric(lines, "harbormaster_open_websockets", "gauge", "WebSockets this gateway holds.",
            [("", gateway.open_websockets)])  # fmt: skip
    _metric(lines, "harbormaster_watched_games", "gauge", "Games this gateway reads (feeds).",
            [("", len(gateway.hub.feeds))])  # fmt: skip
    _metric(lines, "harbormaster_fanout_lag_seconds_max", "gauge",
            "Longest time from an event's append to its fan-out by this gateway.", [("", hub.lag_max_ms / 1000)])  # fmt: skip
    _metric(lines, "harbormaster_fanout_lag_seconds_sum", "counter", "Sum of append-to-fan-out times.",
            [("", hub.lag_ms_sum / 1000)])  # fmt: skip
    _metric(lines, "harbormaster_fanout_events_total", "counter", "Events fanned out.", [("", hub.lag_count)])
    _metric(lines, "harbormaster_ws_frames_total", "counter", "Event frames sent on WebSockets.",
            [("", hub.frames)])  # fmt: skip
    _metric(lines, "harbormaster_ws_resyncs_total", "counter",
            "Times a slow WebSocket was sent a fresh view instead of the events it missed.", [("", hub.resyncs)])  # fmt: skip
    _metric(lines, "harbormaster_feed_rewinds_total", "counter",
            "Feeds found ahead of the store (Redis lost its last seconds) and read again from it.",
            [("", hub.rewinds)])  # fmt: skip
    _metric(lines, "harbormaster_ws_refused_total", "counter", "WebSockets refused, by close code.",
            [(f'{{code="{c}"}}', n) for c, n in sorted(stats.ws_refused.items())] or [('{code="none"}', 0)])  # fmt: skip
    _metric(lines, "harbormaster_ws_stalled_total", "counter",
            "WebSockets dropped because their client stopped reading.", [("", stats.ws_stalled)])  # fmt: skip
    _metric(lines, "harbormaster_ws_messages_total", "counter",
            "Messages from WebSocket clients, by the way they were read (fast: as they arrived).",
            [(f'{{path="{path}"}}', n) for path, n in stats.ws_messages.items()])  # fmt: skip
    _metric(lines, "harbormaster_rate_limited_total", "counter", "Requests and commands refused with 429.",
            [("", gateway.limits.refused)])  # fmt: skip
    _metric(lines, "harbormaster_redis_unavailable_total", "counter", "Requests answered 503 (Redis down).",
            [("", stats.unavailable)])  # fmt: skip
    _metric(lines, "harbormaster_commands_submitted_total", "counter", "Commands put on the bus by this gateway.",
            [("", stats.submitted)])  # fmt: skip
    _metric(lines, "harbormaster_http_requests_total", "counter", "HTTP requests by route and status.",
            [(f'{{method="{m}",route="{r}",status="{s}"}}', n) for (m, r, s), n in sorted(stats.requests.items())])  # fmt: skip


async def metrics(request: Request) -> Response:
    """``GET /metrics``."""
    gateway = gateway_of(request)
    lines: list[str] = []
    fold_metrics(lines, await _worker_counters(gateway))
    gateway_metrics(lines, gateway, await _backlog(gateway))
    return Response("\n".join(lines) + "\n", media_type=CONTENT_TYPE)
