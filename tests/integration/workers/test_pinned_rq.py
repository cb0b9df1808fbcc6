"""rq's private attributes the rq worker's outage loop reads (``workers/runner._stop_asked``): a SIGTERM that
rq took must end the loop even when Redis refuses rq's teardown, so the loop asks the worker whether one came.
An rq release that renames them fails here, not as a worker that outlives its stop."""

from __future__ import annotations

import signal

import pytest
import redis
from rq import SimpleWorker
from rq.exceptions import StopRequested

from workers.runner import _stop_asked


def test_an_idle_rq_worker_notes_the_date_of_a_stop_it_takes(redis_url: str) -> None:
    worker = SimpleWorker([], connection=redis.Redis.from_url(redis_url))
    assert worker._stop_requested is False and worker._shutdown_requested_date is None
    assert not _stop_asked(worker)
    handlers = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    try:
        with pytest.raises(StopRequested):  # idle: rq leaves its loop at once, noting only when
            worker.request_stop(signal.SIGTERM, None)
    finally:
        signal.signal(signal.SIGINT, handlers[0])
        signal.signal(signal.SIGTERM, handlers[1])
    assert worker._shutdown_requested_date is not None
    assert _stop_asked(worker)
