"""Jobs left ``started`` by an rq loop that a Redis outage ended: put back on their queue at once.

When Redis goes away while a job is in hand (issue 42: killed just as a work-horse starts an archive job),
rq's bookkeeping fails on both sides: the work-horse cannot record the job's end and the loop cannot read
its status, so the loop quits (``workers/runner.py`` starts it again) and the job stays ``started`` in its
queue's ``StartedJobRegistry``. Nothing runs it again until rq's own clean-up finds the entry expired: its
heartbeat's lifetime, then a worker's maintenance pass (every 10 minutes), so for minutes the game has no
archive (a tournament's verify says ``UNPROVEN``).

Only the process that ran a worker knows that worker is gone, so it hands back that worker's jobs itself:
each entry of its queues' started registries whose execution names a dead worker of its own is taken out
(a ``ZREM`` only one party wins: rq's clean-up, should it come first, keeps the job) and the job is put at
the front of its queue, its retries untouched (the outage was not the job's fault). Every job here is safe
to run again: the archive job owns its lease under its id and never replaces a verified archive, the round
close has its lease, a bot turn is refused once its seat has moved.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

import redis
import structlog
from rq import Queue
from rq.exceptions import NoSuchJobError
from rq.executions import Execution
from rq.job import Job, JobStatus

from workers.outage import is_outage

log = structlog.get_logger("runner")

RUNNABLE = (JobStatus.QUEUED, JobStatus.STARTED)
"""A job still in one of these was never ended: it runs again. One that ended (its work-horse recorded it
before the outage reached the loop) only loses its stale registry entry."""


def requeue_abandoned(client: Any, queues: Sequence[Queue], dead: Collection[str]) -> list[str]:
    """Put back on their queues the jobs that the workers named ``dead`` (this process's, whose loops
    ended and whose work-horses are gone) had started and not ended; returns their ids. A Redis outage goes
    up (the caller waits it out and calls again); a stored job rq cannot read is logged and left to rq's own
    clean-up, never a reason to stop."""
    if not dead:
        return []
    requeued: list[str] = []
    for queue in queues:
        try:
            _requeue_queue(client, queue, dead, requeued)
        except (redis.RedisError, OSError) as exc:
            if is_outage(exc):
                raise
            log.exception("abandoned_jobs_not_read", queue=queue.name)
        except Exception:  # an entry rq cannot parse: never a reason to stop the worker
            log.exception("abandoned_jobs_not_read", queue=queue.name)
    if requeued:
        log.warning("abandoned_jobs_requeued", jobs=requeued, workers=sorted(dead))
    return requeued


def _requeue_queue(client: Any, queue: Queue, dead: Collection[str], requeued: list[str]) -> None:
    for job_id, execution_id in queue.started_job_registry.get_job_and_execution_ids(cleanup=False):
        execution = Execution(execution_id, job_id, connection=client)
        if _worker_of(client, execution) not in dead:
            continue  # another worker's, alive or not: its own process (or rq's clean-up) sees to it
        try:
            if _requeue(client, queue, execution):
                requeued.append(job_id)
        except (redis.RedisError, OSError) as exc:
            if is_outage(exc):
                raise
            log.exception("abandoned_job_not_requeued", job_id=job_id)
        except Exception:  # a job record rq cannot read: rq's clean-up fails it in time
            log.exception("abandoned_job_not_requeued", job_id=job_id)


def _worker_of(client: Any, execution: Execution) -> str:
    raw = client.hget(execution.key, "worker_name")
    return raw.decode() if isinstance(raw, bytes) else str(raw or "")


def _requeue(client: Any, queue: Queue, execution: Execution) -> bool:
    """Take the execution out of the started registry and, if its job never ended, enqueue the job again at
    the front. False when rq's clean-up took the entry first, or the job record is gone. The job is read
    before the entry is taken: a record rq cannot read raises here and leaves the entry to rq's clean-up."""
    try:
        job = Job.fetch(execution.job_id, connection=client)
    except NoSuchJobError:
        job = None
    registry = queue.started_job_registry
    if not client.zrem(registry.key, execution.composite_key):
        return False  # rq's clean-up won the entry: it retries or fails the job itself
    if job is None:
        client.delete(execution.key)
        return False
    runnable = job.get_status(refresh=False) in RUNNABLE
    with client.pipeline() as pipe:
        execution.delete(job, pipe)
        if runnable:
            # What rq's own retry calls (``Job.retry``); the public ``enqueue_job`` opens a MULTI of its
            # own (for dependencies, which these jobs have none of) and cannot join this one.
            queue._enqueue_job(job, pipeline=pipe, at_front=True)
        pipe.execute()
    return runnable
