"""The archive trigger: when a game ends, the fold worker enqueues its archive job.

The job itself (``services.archive.run_archive_job``) writes the same export as ``harbormaster export``,
so it lives with the export in the services layer; workers sit below services and name it by its dotted
path, which rq resolves in the rq worker (a process that has every layer loaded).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator, Sequence
from typing import Any

from rq import Queue, Retry

from events import keys
from events.archived import trim
from events.errors import UnknownGame
from events.ids import job_id, parse_tournament_game_id
from events.store import EventStore, LoadedGame
from events.tournament_store import tournament_key
from workers.jobs.ownership import owned

ARCHIVE_QUEUE = "hm-archive"
ARCHIVE_JOB = "services.archive.run_archive_job"
ARCHIVE_INDEX = keys.ARCHIVE_INDEX
"""A hash: game id -> JSON ``{"file", "last_seq", "last_hash", "bytes", "verified"}`` of its archive file."""
ARCHIVE_FAILED = keys.ARCHIVE_FAILED
"""A hash: game id -> why its archive job failed (``mark_archive_failed``); such a game is not enqueued again."""


ARCHIVE_LEASE_MS = 600_000
"""How long one writer owns a game's archive: far longer than writing and verifying one takes (a lease
that ran out is the mark of a writer that died; a slow one is refused at its compare-and-set)."""

_SET_IF_OWNER = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
local entry = redis.call('HGET', KEYS[2], ARGV[2])
if entry and cjson.decode(entry).verified == true then return -1 end
redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
return 1
"""


def archive_lease_key(game_id: str) -> str:
    """The lease that makes one process at a time the writer of a game's archive (and its trim); tagged with
    the index's own name, so on a Cluster the compare-and-set of both runs in one slot."""
    return f"{{{ARCHIVE_INDEX}}}:lease:{game_id}"


@contextlib.contextmanager
def archive_lease(client: Any, game_id: str, owner: str | None = None) -> Iterator[str | None]:
    """Own the game's archive for the block: yields this writer's token, or ``None`` when another writer
    owns it now (the caller leaves the archive to that one). Released only by its owner; ``owner`` as in
    ``ownership.owned`` (the archive job's id: its retry takes back the lease of an attempt that was killed)."""
    with owned(client, archive_lease_key(game_id), ARCHIVE_LEASE_MS, owner) as token:
        yield token


_SET_UNLESS_VERIFIED = """
local entry = redis.call('HGET', KEYS[1], ARGV[1])
if entry and cjson.decode(entry).verified == true then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1
"""


def set_entry_unless_verified(client: Any, game_id: str, entry: dict[str, Any]) -> bool:
    """Store an unverified index entry (a file just written) unless a verified one is there already."""
    return int(client.eval(_SET_UNLESS_VERIFIED, 1, ARCHIVE_INDEX, game_id, json.dumps(entry))) == 1


def set_entry_if_owner(client: Any, game_id: str, token: str, entry: dict[str, Any]) -> bool:
    """Store the game's index entry only while ``token`` still owns its archive and no verified entry is
    there: a writer whose lease ran out, or that comes after a verified archive, changes nothing."""
    done = client.eval(
        _SET_IF_OWNER, 2, archive_lease_key(game_id), ARCHIVE_INDEX, token, game_id, json.dumps(entry)
    )
    return int(done) == 1


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
        if not entry.get("verified") or entry.get("conflict"):
            continue  # two archives disagree: Redis's copy stays for whoever settles it
        try:
            meta = store.meta(game_id)
        except UnknownGame:
            continue
        if meta.archive or meta.status != "finished" or meta.last_seq != entry["last_seq"]:
            continue
        if not meta.tournament or not _recorded(store, game_id):
            continue  # only a tournament's games, once recorded (others are read by their players' clients)
        with archive_lease(store.redis, game_id) as token:
            if token is None:
                continue  # its archive's writer trims it, or the next pass does
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
) -> bool:
    """Enqueue the archive job of a game unless it is archived already (the index, on ``client``), queued or
    running (the job, on the queue's Redis); returns whether it was enqueued."""
    entry = client.hget(ARCHIVE_INDEX, game_id)
    if (entry is not None and json.loads(entry).get("verified")) or client.hexists(ARCHIVE_FAILED, game_id):
        return False  # an unverified entry (an archive asked for while the game was live) is written again
    job_id = archive_job_id(game_id)
    if queue.connection.hget(f"rq:job:{job_id}", "status") in (b"queued", b"started"):
        return False
    queue.enqueue_call(
        func=ARCHIVE_JOB,
        args=(redis_url, game_id, archive_dir, plugins),
        job_id=job_id,
        result_ttl=300,
        failure_ttl=3600,
        retry=Retry(max=3),
    )
    return True
