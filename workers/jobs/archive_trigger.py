"""The archive trigger: when a game ends, the fold worker enqueues its archive job.

The job itself (``services.archive.run_archive_job``) writes the same export as ``harbormaster export``,
so it lives with the export in the services layer; workers sit below services and name it by its dotted
path, which rq resolves in the rq worker (a process that has every layer loaded).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from rq import Queue, Retry

from events.archived import trim
from events.errors import UnknownGame
from events.ids import job_id, parse_tournament_game_id
from events.store import EventStore, LoadedGame
from events.tournament_store import tournament_key

ARCHIVE_QUEUE = "hm-archive"
ARCHIVE_JOB = "services.archive.run_archive_job"
ARCHIVE_INDEX = "hm:archive"
"""A hash: game id -> JSON ``{"file", "last_seq", "last_hash", "bytes", "verified"}`` of its archive file."""
ARCHIVE_FAILED = "hm:archive:failed"
"""A hash: game id -> why its archive job failed (``mark_archive_failed``); such a game is not enqueued again."""


_trim = True


def set_trim(enabled: bool) -> None:
    """Hand this process's ``HARBORMASTER_ARCHIVE_TRIM`` down (``Settings.archive_trim``; ``services.bootstrap``
    does it as it builds a process's services). The trims run inside rq jobs, which get a URL and ids, not
    settings, and this layer cannot read the services' settings itself."""
    global _trim
    _trim = enabled


def trim_enabled() -> bool:
    """Whether archived games are trimmed (default on; ``HARBORMASTER_ARCHIVE_TRIM=0`` keeps them in Redis)."""
    return _trim


def recorded_key(tournament_id: str) -> str:
    """A set: the tournament's games whose tables the round job has recorded (it reads no more of them)."""
    return tournament_key(tournament_id, "recorded")


def trim_archived(store: EventStore, game_ids: Sequence[str]) -> list[str]:
    """Trim from Redis each of ``game_ids`` that is a tournament's game whose archive verified and whose
    table the round job has recorded (nothing reads it in Redis again); returns those trimmed. Other
    games stay: a player's client may still ask for a command's result, which only Redis answers. Called by the archive job after
    it marks an archive verified and by the round job after it records tables: whichever comes second
    finds the other's mark, since each writes its own before reading the other's."""
    if not trim_enabled() or not game_ids:
        return []
    entries = store.redis.hmget(ARCHIVE_INDEX, list(game_ids))
    trimmed = []
    for game_id, raw in zip(game_ids, entries, strict=True):
        entry = json.loads(raw) if raw else {}
        if not entry.get("verified"):
            continue
        try:
            meta = store.meta(game_id)
        except UnknownGame:
            continue
        if meta.archive or meta.status != "finished" or meta.last_seq != entry["last_seq"]:
            continue
        if not meta.tournament or not _recorded(store, game_id):
            continue  # only a tournament's games, once recorded (others are read by their players' clients)
        trim(store.redis, game_id, entry["file"])
        trimmed.append(game_id)
    return trimmed


def _recorded(store: EventStore, game_id: str) -> bool:
    parsed = parse_tournament_game_id(game_id)  # ``<tournament>-r<round>-t<table>``
    return parsed is not None and bool(store.redis.sismember(recorded_key(parsed[0]), game_id))


def archive_job_id(game_id: str) -> str:
    return job_id("hm-archive", game_id)


def mark_archive_failed(client: Any, game_id: str, reason: str) -> None:
    """Set a game's archive aside: its job failed for a reason of the game's own, so no trigger enqueues it
    again (``HDEL hm:archive:failed <id>`` lets it be tried once more)."""
    client.hset(ARCHIVE_FAILED, game_id, reason[:500])


class ArchiveTrigger:
    """The fold worker's hook: enqueue a finished game's archive job once (the job id is the game's; an
    archive already written makes a second run a no-op). The index is read on ``client`` (the game data),
    the job goes on ``rq`` (the rq queues' Redis: another one when the data is on a Cluster)."""

    def __init__(
        self, client: Any, rq: Any, redis_url: str, archive_dir: str | None, plugins: tuple[str, ...]
    ) -> None:
        self.redis = client
        self.queue = Queue(ARCHIVE_QUEUE, connection=rq)
        self.redis_url = redis_url
        self.archive_dir = archive_dir
        self.plugins = plugins

    def __call__(self, game_id: str, loaded: LoadedGame) -> None:
        if self.archive_dir is None or loaded.game.outcome(loaded.state) is None:
            return
        enqueue_archive(self.redis, self.queue, self.redis_url, game_id, self.archive_dir, self.plugins)


def enqueue_archive(
    client: Any, queue: Any, redis_url: str, game_id: str, archive_dir: str, plugins: tuple[str, ...]
) -> None:
    """Enqueue the archive job of a game unless it is archived already (the index, on ``client``), queued or
    running (the job, on the queue's Redis)."""
    if client.hexists(ARCHIVE_INDEX, game_id) or client.hexists(ARCHIVE_FAILED, game_id):
        return
    job_id = archive_job_id(game_id)
    if queue.connection.hget(f"rq:job:{job_id}", "status") in (b"queued", b"started"):
        return
    queue.enqueue_call(
        func=ARCHIVE_JOB,
        args=(redis_url, game_id, archive_dir, plugins),
        job_id=job_id,
        result_ttl=300,
        failure_ttl=3600,
        retry=Retry(max=3),
    )
