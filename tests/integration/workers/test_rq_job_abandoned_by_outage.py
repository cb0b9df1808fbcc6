"""A job left ``started`` by an rq loop that a Redis kill ended is run again as soon as Redis is back (issue
42; the short tournament chaos run failed about one run in two on it).

Redis killed just as a work-horse takes an archive job: the work-horse cannot record the job's end, the loop
cannot read its status and quits, and ``workers/runner.py`` starts it again; the job stayed ``started`` in
its queue's registry, and nothing ran it until rq's own clean-up found it abandoned, minutes later. Now the
process hands its dead loop's jobs back to their queues when it starts the loop again.

Made to happen with a real rq worker process on a real Redis: the job itself kills Redis (SIGKILL; the
state left is the issue's: the job ``started``, its registry entry there, no end recorded), the test starts
Redis again (every write fsynced: the kill loses none) only once the worker has met the outage, and the job
must then end. It has no retries: rq's own handling could not have run it again either."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from rq import Queue
from rq.exceptions import InvalidJobOperation, NoSuchJobError
from rq.executions import Execution
from rq.job import Job, JobStatus

from tests.support.pipeline import TEST_PLUGINS, eventually, stop_process
from tests.support.rollback import RollbackRedis
from workers.abandoned import requeue_abandoned
from workers.jobs.archive_trigger import ARCHIVE_QUEUE

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="signals a process")

JOB_ID = "outage-job"


@pytest.fixture
def server(tmp_path: Path) -> Iterator[RollbackRedis]:
    rollback = RollbackRedis(tmp_path / "data")
    rollback.start()
    try:
        yield rollback
    finally:
        rollback.stop()


def start_rq_worker(url: str, home: Path, log: Path, no_fork: bool) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "REDIS_URL": url,
        "HARBORMASTER_DATA": str(home),
        "HARBORMASTER_GAME_PLUGINS": TEST_PLUGINS,
        "HARBORMASTER_LOG_LEVEL": "info",
    }
    verb = ["rq-worker", *(["--no-fork"] if no_fork else [])]
    with log.open("wb") as handle:
        return subprocess.Popen(
            [sys.executable, "-m", "services.cli", *verb], env=env, stdout=handle, stderr=handle
        )


@pytest.mark.parametrize("no_fork", [False, True], ids=["work_horse", "no_fork"])
def test_a_job_whose_loop_died_with_redis_runs_again_once_redis_is_back(
    server: RollbackRedis, tmp_path: Path, no_fork: bool
) -> None:
    log = tmp_path / "rq.log"
    worker = start_rq_worker(server.url, tmp_path / "home", log, no_fork)
    redis_process = server.server.process
    assert redis_process is not None
    client = redis.Redis.from_url(server.url)
    try:
        eventually(lambda: client.scard("rq:workers") > 0, timeout=60, message="the rq worker registered")
        marker = tmp_path / "killed"
        Queue(ARCHIVE_QUEUE, connection=client).enqueue_call(
            func="tests.support.outage_jobs.kill_redis_once",
            args=(redis_process.pid, str(marker)),
            job_id=JOB_ID,
            result_ttl=600,
        )
        redis_process.wait(timeout=60)  # the job killed it
        client.close()
        assert marker.exists()
        # The loop met the outage (its one warning of the stretch) before Redis comes back: else rq would
        # read the job's status and fail it as usual, and the case would not be made.
        eventually(
            lambda: "redis_unreachable" in log.read_text(), timeout=60, message="the loop met the outage"
        )
        server.start()
        client = redis.Redis.from_url(server.url)
        assert client.hget(f"rq:job:{JOB_ID}", "status") in (b"started", b"queued", b"finished")
        eventually(lambda: job_status(client) == JobStatus.FINISHED, timeout=60, message="the job ran again")
        job = Job.fetch(JOB_ID, connection=client)
        assert job.return_value() == "ran again"
        assert not Queue(ARCHIVE_QUEUE, connection=client).started_job_registry.get_job_ids(cleanup=False)
        text = log.read_text()
        assert "abandoned_jobs_requeued" in text and JOB_ID in text, text[-3000:]
        assert worker.poll() is None  # the worker lived through it
    finally:
        client.close()
        code = stop_process(worker, timeout=30) if worker.poll() is None else worker.returncode
    assert code == 0, log.read_text()[-3000:]


def job_status(client: redis.Redis) -> JobStatus | None:
    try:
        return Job.fetch(JOB_ID, connection=client).get_status()
    except (NoSuchJobError, InvalidJobOperation, redis.RedisError):  # not there or not readable yet
        return None


def test_only_the_dead_workers_started_jobs_are_handed_back_and_bad_records_stop_nothing(
    redis_client: redis.Redis,
) -> None:
    """The entries made as rq makes them (``Execution.create`` as a job is taken): the dead worker's job goes
    back to the front of its queue, a live worker's stays; an entry rq cannot parse and a job record it
    cannot read are logged and left, and the worker goes on."""
    queue = Queue(ARCHIVE_QUEUE, connection=redis_client)
    waiting = queue.enqueue_call(func="tests.support.outage_jobs.kill_redis_once", args=(0, "-"), job_id="w")
    taken = {}
    for job_id, worker in (("dead-job", "dead-1"), ("live-job", "live-1"), ("broken-job", "dead-1")):
        job = queue.enqueue_call(
            func="tests.support.outage_jobs.kill_redis_once", args=(0, "-"), job_id=job_id
        )
        redis_client.lrem(queue.key, 0, job_id)  # taken off the queue by its worker
        with redis_client.pipeline() as pipe:
            taken[job_id] = Execution.create(job, 90, pipeline=pipe, worker_name=worker)
            job.set_status(JobStatus.STARTED, pipeline=pipe)
            pipe.execute()
    redis_client.hset("rq:job:broken-job", "created_at", "not a date")  # a record rq cannot read
    redis_client.zadd(queue.started_job_registry.key, {"no-execution-id": 9e12})  # nor parse

    assert requeue_abandoned(redis_client, [queue], {"dead-1"}) == ["dead-job"]
    assert queue.get_job_ids() == ["dead-job", waiting.id]  # at the front
    assert Job.fetch("dead-job", connection=redis_client).get_status() == JobStatus.QUEUED
    left = set(queue.started_job_registry.get_job_ids(cleanup=False))
    assert {"live-job", "broken-job"} <= left and "dead-job" not in left
    assert not redis_client.exists(taken["dead-job"].key)  # its execution record went with it
    assert requeue_abandoned(redis_client, [queue], set()) == []  # no dead worker: nothing read
