"""rq's private attributes the rq worker's outage loop reads (``workers/runner._stop_asked``): a SIGTERM that
rq took must end the loop even when Redis refuses rq's teardown, so the loop asks the worker whether one came.
An rq release that renames them fails here, not as a worker that outlives its stop."""

from __future__ import annotations

import inspect
import signal

import pytest
import redis
from rq import SimpleWorker
from rq.exceptions import StopRequested

from workers.runner import STOP_LOOK_S, _stop_asked, _take_stops_for_sure


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


def test_a_stop_is_noted_where_rqs_loop_looks_and_its_wait_is_short(redis_url: str) -> None:
    """A ``StopRequested`` lost in a finaliser still stops the worker: the stop is noted where rq's loop looks
    before each wait on its queues (``_stop_requested``), and that wait lasts at most ``STOP_LOOK_S``."""
    worker = SimpleWorker([], connection=redis.Redis.from_url(redis_url))
    _take_stops_for_sure(worker)
    assert worker.dequeue_timeout == STOP_LOOK_S  # rq waits its worker TTL less 15 s
    assert "self.request_stop" in inspect.getsource(type(worker)._install_signal_handlers)
    handlers = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    try:
        with pytest.raises(StopRequested):
            worker.request_stop(signal.SIGTERM, None)
    finally:
        signal.signal(signal.SIGINT, handlers[0])
        signal.signal(signal.SIGTERM, handlers[1])
    assert worker._stop_requested is True  # rq's loop breaks on it at its next look
