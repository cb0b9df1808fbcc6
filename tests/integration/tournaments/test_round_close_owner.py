"""A round's close has one owner at a time (issue 42, finding 2): while the round job closes a round, the
reconcile pass leaves it alone instead of loading games the job is trimming (which failed a finished
tournament for ever); once the owner is gone, the next pass closes it."""

from __future__ import annotations

import time

from rq import Queue
from rq.job import Job

from events.tournament_store import TournamentStore
from services import tournament_service as service
from tests.support.pipeline import services_for
from tests.support.tournaments import fold_worker, race_tournament, roll_out
from workers.jobs.ownership import owned
from workers.jobs.tournament import (
    CLOSING_LEASE_MS,
    ROUND_JOB_TIMEOUT_S,
    _closing_key,
    enqueue_round,
    round_job_id,
)


def test_a_pass_that_finds_the_close_owned_leaves_it_and_a_later_pass_closes(redis_url, redis_client) -> None:
    services = services_for(redis_url)
    tid = race_tournament(services, redis_url, "tclose", people=("ann", "bob"))
    roll_out(services, fold_worker(services), service.load(services, tid).rounds[0].games[:1])
    with owned(redis_client, _closing_key(tid, 1), CLOSING_LEASE_MS) as token:
        assert token is not None  # the round job, paused in the middle of its close
        during = service.reconcile(services, redis_url, tid)
        assert during.status == "running" and during.rounds[0].results[0] is None
        assert TournamentStore(services.redis).failure(tid) is None
    after = service.reconcile(services, redis_url, tid)
    assert after.status == "finished" and after.rounds[0].results[0] is not None
    assert TournamentStore(services.redis).failure(tid) is None


def test_a_close_longer_than_its_lease_keeps_it_renewed_while_it_works(redis_client) -> None:
    key = _closing_key("tlong", 1)
    with owned(redis_client, key, 300, renew=True) as token:
        assert token is not None
        time.sleep(1.0)  # the close at work (paused here) for more than three times its lease's time to live
        with owned(redis_client, key, 300) as other:
            assert other is None  # a reconcile pass still finds it owned
        assert redis_client.get(key) == token.encode()
    assert redis_client.get(key) is None  # given back when the close ends


def test_the_round_job_may_run_longer_than_rqs_default_timeout(redis_client) -> None:
    enqueue_round(Queue("hm-test-rounds", connection=redis_client), "redis://unused", "tjob", 1, 8, ())
    job = Job.fetch(round_job_id("tjob", 1), connection=redis_client)
    assert job.timeout == ROUND_JOB_TIMEOUT_S and ROUND_JOB_TIMEOUT_S > 180
