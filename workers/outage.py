"""Redis away, or refusing writes: what a long-running worker waits out instead of exiting.

Two kinds of trouble say nothing about the work in hand and pass on their own (or when an operator acts):

- Redis unreachable (restarted by ``serve``, a failover, a network cut): ``REDIS_DOWN``;
- Redis answering but refusing every write (issue 43, finding 11): at ``maxmemory`` with ``noeviction``
  (``OOM command not allowed``), after a failed snapshot with ``stop-writes-on-bgsave-error`` (``MISCONF``,
  a full disk), or a replica (``READONLY``). redis-py names two of them (``OutOfMemoryError``,
  ``ReadOnlyError``); the worker's own pipelined connections (``events/transport/pipelined.py``) and
  ``MISCONF`` give a plain ``ResponseError`` whose message starts with the code, so the code is read too.

``Episode`` paces a worker through one stretch of trouble: a capped, doubling wait between attempts, one
warning when the stretch begins (not one a retry: a full disk for an hour would fill the rest of it with
the same line), and one line when it ends.
"""

from __future__ import annotations

import time

import redis
import structlog
from redis.exceptions import ClusterDownError, MasterDownError, SlotNotCoveredError

log = structlog.get_logger("outage")

REDIS_DOWN = (
    redis.ConnectionError,
    redis.TimeoutError,
    OSError,
    ClusterDownError,
    MasterDownError,
    SlotNotCoveredError,
)
"""What a Redis outage raises (``BusyLoadingError`` while it loads its data is a ``ConnectionError``; on a
Cluster, a master lost and not yet replaced answers ``CLUSTERDOWN``, or its slots are not covered)."""

REFUSAL_CODES = (b"OOM", b"MISCONF", b"READONLY")
"""Error codes of a Redis that is up but takes no writes, whatever the key or the command's arguments."""

PIPELINE_NOTE = " of pipeline caused error: "
"""What redis-py puts between a pipelined command and its error (``Command # 1 (XADD …) of pipeline…``)."""

FIRST_WAIT_S = 0.2
MOST_WAIT_S = 5.0
HEALTHY_AFTER_S = 30.0
"""A run that lasted this long before failing ended the stretch before: the next failure starts a new one."""


def refuses_writes(exc: BaseException) -> bool:
    """Whether ``exc`` is Redis refusing all writes for now (out of memory, a failed save, read-only)."""
    if isinstance(exc, redis.exceptions.OutOfMemoryError | redis.exceptions.ReadOnlyError):
        return True
    if not isinstance(exc, redis.ResponseError):
        return False
    text = str(exc)
    _, annotated, error = text.partition(PIPELINE_NOTE)  # redis-py names the command of a pipeline first
    first = (error if annotated else text).lstrip().split(" ", 1)[0].encode()
    return first in REFUSAL_CODES


def is_outage(exc: BaseException) -> bool:
    """Whether ``exc`` is Redis away or refusing writes: wait and try again, never exit."""
    return isinstance(exc, REDIS_DOWN) or refuses_writes(exc)


def kind_of(exc: BaseException) -> str:
    return "refusing_writes" if refuses_writes(exc) else "unreachable"


class Episode:
    """One worker's pacing through stretches of Redis trouble (see the module's docstring)."""

    def __init__(self, what: str, first_s: float = FIRST_WAIT_S, most_s: float = MOST_WAIT_S) -> None:
        self.what = what
        self.first_s = first_s
        self.most_s = most_s
        self.wait_s = first_s
        self.began: float | None = None
        """When the current stretch began (monotonic), or None between stretches."""
        self.failures = 0

    def failed(self, exc: BaseException, run_started: float) -> float:
        """A run begun at ``run_started`` met ``exc``: the seconds to wait before the next attempt. The
        first failure of a stretch is logged as a warning, the rest at debug level."""
        now = time.monotonic()
        if self.began is not None and now - run_started >= HEALTHY_AFTER_S:
            self.ended(at=run_started)  # the run that just failed had gone well for a while
        error = (str(exc) or type(exc).__name__)[:200]
        if self.began is None:
            self.began, self.failures, self.wait_s = now, 0, self.first_s
            log.warning(f"redis_{kind_of(exc)}", worker=self.what, error=error, retry_up_to_s=self.most_s)
        else:
            log.debug("redis_retry", worker=self.what, error=error, retry_in_s=self.wait_s)
        self.failures += 1
        wait_s, self.wait_s = self.wait_s, min(self.most_s, self.wait_s * 2)
        return wait_s

    def ended(self, at: float | None = None) -> None:
        """The stretch is over (a run went well, from ``at`` or now): one line saying how long it lasted."""
        if self.began is None:
            return
        lasted_s = (time.monotonic() if at is None else at) - self.began
        log.warning("redis_recovered", worker=self.what, after_s=round(lasted_s, 1), attempts=self.failures)
        self.began, self.failures, self.wait_s = None, 0, self.first_s
