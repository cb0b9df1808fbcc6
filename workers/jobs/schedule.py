"""Bot turns follow from the log: one idempotent rq job per (game, seq, seat), retried, and reconciled.

Whose turn it is lives in the game's event log, so a bot turn must never depend on a job surviving: an rq
work-horse killed mid-job, an rq worker dying between taking a job and starting it, or Redis dying while a
job runs each lost a turn for good. So:

- the job's id is derived from ``(game, seq, seat)``, the position the bot is to act at: enqueueing it again
  while it is queued or running is a no-op, and once it has finished, failed or vanished, enqueueing it
  again runs it again, which is harmless because the bot's command id is derived from the same position
  (the append refuses a second one);
- rq retries a failed job (a killed work-horse counts as failed);
- the reconciler (``reconcile``, run by ``serve`` at start and every few seconds) looks at every live game
  whose bot is to act and enqueues its job unless one is in flight. A job that says "queued" or "started"
  for much longer than a bot turn takes is taken to be lost (its worker died holding it).
"""

from __future__ import annotations

import hashlib
import re
from datetime import UTC, datetime
from typing import Any

import msgspec
import redis
import structlog
from rq import Queue, Retry
from rq.job import Job
from rq.utils import utcparse

from events.errors import UnknownGame
from events.store import EventStore, LoadedGame
from workers.jobs.bots import (
    BOT_QUEUE,
    SEARCH_QUEUE,
    StandIns,
    acting_bots,
    job_timeout,
    play_bot_turn,
    searches,
    turn_seconds,
)
from workers.jobs.failures import TRANSIENT, failure_reason

log = structlog.get_logger("bot_schedule")

IN_FLIGHT = {b"queued", b"started", b"deferred", b"scheduled"}
"""rq job states in which the job will still run (or is running)."""

STALE_AFTER_S = 15.0
"""A bot job queued or started this long ago (plus the bot delay) is taken to be lost. A bot turn takes
milliseconds; a second run of a job that was merely slow sends nothing new."""

RETRY = Retry(max=3)
"""rq's own retries, at once: a killed work-horse or a Redis error mid-job fails the job."""

_SAFE_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")


def bot_job_id(game_id: str, seq: int, seat: int) -> str:
    """The rq job id of the bot turn at ``(game, seq, seat)``; rq allows only ``[A-Za-z0-9_-]`` in ids, so a
    game id with other characters is hashed."""
    name = game_id if _SAFE_ID.fullmatch(game_id) else "h" + hashlib.sha256(game_id.encode()).hexdigest()[:32]
    return f"hm-bot-{name}-{seq}-{seat}"


def acting_bot_seats(loaded: LoadedGame, stand_ins: StandIns | None = None) -> list[int]:
    """The bot seats that are to act now, in seat order (none once the game is over); ``stand_ins``: seats a
    bot plays for a person who left them, besides the game's own."""
    return [seat for seat, _ in acting_bots(loaded, stand_ins)]


def _timeout(search_s: float, delay_s: float) -> int | None:
    """rq's timeout of a turn: the backstop of a search's deadline; rq's default (minutes) for the others."""
    return job_timeout(search_s, delay_s) if search_s else None


def searching_seat(loaded: LoadedGame, seat: int) -> bool:
    """Whether the seat is played by a search bot (its turns are rq jobs with a deadline)."""
    return searches(loaded.game, loaded.meta.bots.get(str(seat), ""))


class BotScheduler(msgspec.Struct, kw_only=True):
    """Enqueues ``play_bot_turn`` for a game whose bot is to act, once per position."""

    queue: Any
    redis_url: str
    search_queue: Any = None
    """Where the search bots' turns go (``SEARCH_QUEUE``; default ``queue``): the rq workers take it after
    the instant bots', the tournaments' and the archives' queues, so seconds of search never hold those up."""
    delay_s: float = 0.0
    partitions: int = 16
    plugins: tuple[str, ...] = ()

    def job_in_flight(self, job_id: str, queue: Any = None) -> bool:
        """Whether a job of that id is queued (on ``queue``, default the bots') or running, and recently
        enough to be believed."""
        queue = queue if queue is not None else self.queue
        status, enqueued, started = queue.connection.hmget(
            Job.key_for(job_id), "status", "enqueued_at", "started_at"
        )
        if status not in IN_FLIGHT:
            return False
        if status == b"queued" and queue.connection.lpos(queue.key, job_id) is not None:
            return True  # waiting in the queue, however long the queue is
        since = started or enqueued
        if not since:
            return True
        age = (datetime.now(UTC) - utcparse(since.decode()).replace(tzinfo=UTC)).total_seconds()
        return age < STALE_AFTER_S + 2 * self.delay_s

    def ensure(
        self,
        game_id: str,
        loaded: LoadedGame,
        only_searching: bool = False,
        stand_ins: StandIns | None = None,
    ) -> str | None:
        """Enqueue the bot turn at the game's position unless none is due or one is in flight; returns the
        id of the job enqueued, if any. ``only_searching``: only a turn where a search bot is to act (a live
        bot runner plays the others, and never searches: a search holds its worker for its level).
        ``stand_ins``: seats a bot plays for people who left them (``services/players/table_clock.py``)."""
        seats = acting_bot_seats(loaded, stand_ins)
        if not seats or (only_searching and not any(searching_seat(loaded, seat) for seat in seats)):
            return None
        # One job plays every bot seat to act at this position: keyed by the first of them.
        job_id = bot_job_id(game_id, loaded.seq, seats[0])
        search_s = turn_seconds(loaded, stand_ins)
        queue = self.search_queue if search_s and self.search_queue is not None else self.queue
        if self.job_in_flight(job_id, queue):
            return None
        delay_s = 0.0 if loaded.meta.tournament else self.delay_s  # the demo's pace, never a tournament's
        queue.enqueue_call(
            func=play_bot_turn,
            args=(self.redis_url, game_id, delay_s, self.partitions, self.plugins, loaded.seq, stand_ins),
            job_id=job_id,
            result_ttl=300,
            failure_ttl=3600,
            retry=RETRY,
            timeout=_timeout(search_s, delay_s),
        )
        return job_id

    def searching(self, game_id: str, loaded: LoadedGame) -> None:
        """The fold worker's hook while a bot runner is live: the search bots' turns only."""
        self.ensure(game_id, loaded, only_searching=True)

    def __call__(self, game_id: str, loaded: LoadedGame) -> None:
        """The fold worker's hook, after each applied command (and each duplicate: it may be the trace of
        a turn whose job was lost after its command was sent)."""
        self.ensure(game_id, loaded)


def reconcile(
    store: EventStore, scheduler: BotScheduler, seen: dict[str, int] | None = None, page: int = 500
) -> list[str]:
    """Enqueue the bot turn of every live game whose bot is to act with no job in flight; returns the ids
    of the jobs enqueued (each one a turn that would otherwise have been lost, or was merely slow).

    With ``seen`` (each game's sequence number at the last pass, kept by the caller between passes), a
    game that moved on since the last pass is progressing and is not loaded: a pass costs a meta read per
    live game, and a load only for the games that stood still.
    """
    enqueued = []
    live: set[str] = set()
    offset = 0
    while True:
        game_ids = store.list_games(live_only=True, offset=offset, limit=page)
        live.update(game_ids)
        for game_id in game_ids:
            job_id = _reconcile_one(store, scheduler, game_id, seen)
            if job_id is not None:
                enqueued.append(job_id)
        if len(game_ids) < page:
            break
        offset += page
    if seen is not None:
        for gone in set(seen) - live:
            del seen[gone]
    if enqueued:
        log.info("bot_turns_reconciled", enqueued=len(enqueued), jobs=enqueued[:10])
    return enqueued


def _reconcile_one(
    store: EventStore, scheduler: BotScheduler, game_id: str, seen: dict[str, int] | None
) -> str | None:
    try:
        meta = store.meta(game_id)
        if meta.status == "finished":
            # The live index is advisory: a fold worker killed between the append (which marks the game
            # finished) and its index update leaves it there. Repair it, or every pass would look again.
            store.mark_finished(game_id)
            return None
        if not meta.bots:
            return None
        if seen is not None:
            before, seen[game_id] = seen.get(game_id), meta.last_seq
            if before is not None and before != meta.last_seq:
                return None
        return scheduler.ensure(game_id, store.load(game_id))
    except UnknownGame:
        return None
    except TRANSIENT:
        raise
    except (
        Exception
    ) as exc:  # one game that cannot be loaded (a record from an older version): the others go on
        log.warning("bot_reconcile_failed", game_id=game_id, error=failure_reason(exc))
        return None


def make_scheduler(
    client: redis.Redis, redis_url: str, delay_s: float, partitions: int, plugins: tuple[str, ...]
) -> BotScheduler:
    return BotScheduler(
        queue=Queue(BOT_QUEUE, connection=client),
        search_queue=Queue(SEARCH_QUEUE, connection=client),
        redis_url=redis_url,
        delay_s=delay_s,
        partitions=partitions,
        plugins=plugins,
    )
