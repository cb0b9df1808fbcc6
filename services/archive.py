"""Archive: each finished game as compressed JSON Lines (the ``harbormaster export`` format, gzipped).

``<archive dir>/<game id>.jsonl.gz`` (``HARBORMASTER_ARCHIVE``, default ``<data dir>/archive``), written
to a temporary name, flushed to disk and linked into place, so a file under its final name is always whole
and never replaced by a different one once it verifies (``services/archive_conflict.py``). The
gzip header carries no time (mtime 0): the same game archives to the same bytes. ``harbormaster verify``
reads the file as it is. An index in Redis (``hm:archive``) gives each archived game's file and last
hash; the tournament export lists them.
Once the archive verifies (``harbormaster verify`` on the file), a tournament's game is trimmed from
Redis (``events/archived.py``) as soon as its round job has recorded its table
(``HARBORMASTER_ARCHIVE_TRIM=0`` keeps it): loading or exporting it reads the archive.
With ``HARBORMASTER_ARCHIVE_BUCKET`` each verified file is also uploaded to an S3-compatible bucket
(``services/archive_bucket.py``); the game counts as verified (and may be trimmed) only once the bucket
confirmed the upload, and the index entry names the object.
"""

from __future__ import annotations

import contextlib
import functools
import gzip
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

import msgspec
import structlog

from domain import games_with_plugins
from events import keys
from events.archived import archive_lines
from events.connection import connect
from events.ids import safe_part
from events.log_store import enqueue
from events.store import EventStore
from events.tlog import leaves
from services.archive_bucket import ArchiveBucket, BucketError
from services.archive_conflict import file_entry, found_conflict, place
from services.audit.jsonl import LINE_DECODER, CommandLine
from services.audit.verify import verify_file
from services.config import Settings
from services.export import export_lines
from workers.jobs.archive_trigger import (
    ARCHIVE_INDEX,
    archive_job_id,
    archive_lease,
    mark_archive_failed,
    set_entry_if_owner,
    set_entry_unless_verified,
    trim_archived,
)
from workers.jobs.failures import TRANSIENT, UNREACHABLE, failure_reason

log = structlog.get_logger("archive")


def archive_path(archive_dir: str | Path, game_id: str) -> Path:
    """``<archive dir>/<game id>.jsonl.gz``; an id stored before ids were checked (``../evil``) gets a
    name of its digest (``events/ids.py``), so no id writes outside the folder."""
    return Path(archive_dir) / f"{safe_part(game_id)}.jsonl.gz"


def write_archive(store: EventStore, game_id: str, archive_dir: str | Path) -> dict[str, Any]:
    """Write the game's archive file; returns its index entry (also stored under ``hm:archive``)."""
    path = archive_path(archive_dir, game_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    # A temporary name of this writer's own: an rq job and `tournament run`'s own pass may archive the
    # same game at once, and a shared `.part` name let one rename the file from under the other.
    handle, partial = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
    try:
        with os.fdopen(handle, "wb") as raw:
            with gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as zipped:
                for line in export_lines(store, game_id):
                    zipped.write(line + b"\n")
            raw.flush()
            os.fsync(raw.fileno())
        os.chmod(partial, 0o644)  # mkstemp's 0600 would differ from the archive files written before
        kept = archived(store.redis, [game_id]).get(game_id)
        if kept is not None and kept.get("verified"):  # a writer whose lease ran out: the verified file stays
            os.unlink(partial)
            return kept
        # Linked, never renamed over a file: Redis may have lost the index entry of a verified one.
        conflict = place(Path(partial), path, game_id, store.games) or found_conflict(path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(partial)
        raise
    entry = file_entry(path)  # the file under the name: this writer's, or the verified one kept
    if conflict is not None:
        entry["conflict"] = conflict
    if not set_entry_unless_verified(store.redis, game_id, entry):
        return archived(store.redis, [game_id])[game_id]
    return entry


def archived(client: Any, game_ids: list[str]) -> dict[str, dict[str, Any]]:
    """The index entries of those of ``game_ids`` that are archived."""
    if not game_ids:
        return {}
    values = client.hmget(ARCHIVE_INDEX, game_ids)
    return {g: json.loads(v) for g, v in zip(game_ids, values, strict=True) if v is not None}


def configured_bucket() -> ArchiveBucket | None:
    """The bucket ``HARBORMASTER_ARCHIVE_BUCKET`` names, if any (one client a process and setting). Read from
    the settings here: the archive job runs with a URL and a folder, not the process's settings."""
    settings = Settings.from_env()
    return _bucket(settings.archive_bucket or "", settings.archive_s3_endpoint or "")


@functools.cache
def _bucket(url: str, endpoint: str) -> ArchiveBucket | None:
    return ArchiveBucket(url, endpoint or None) if url else None


def archive_missing(store: EventStore, game_ids: list[str], archive_dir: str | Path) -> list[dict[str, Any]]:
    """Archive, in this process, those of ``game_ids`` that are finished and not archived yet (a trigger
    lost to a crash, workers stopped before their job ran, games older than the archive), or not yet in the
    bucket when one is configured (an upload that failed)."""
    done = archived(store.redis, game_ids)
    uploading = configured_bucket() is not None
    written = []
    for game_id in game_ids:
        missing = game_id not in done or (uploading and "object" not in done[game_id])
        if missing and store.meta(game_id).status == "finished":
            try:
                written.append({"game_id": game_id} | archive_game(store, game_id, archive_dir))
            except TRANSIENT:
                raise
            except Exception as exc:  # one game's archive fails, not the others'
                log.exception("archive_failed", game_id=game_id)
                mark_archive_failed(store.redis, game_id, failure_reason(exc))
    trim_archived(store, [g for g, entry in done.items() if entry.get("verified")])  # a trim lost to a crash
    return written


class NotFinished(ValueError):
    """A game still being played: its archive is written when it ends, not before (a stale one would
    stand for the game)."""


def archive_game(
    store: EventStore, game_id: str, archive_dir: str | Path, owner: str | None = None
) -> dict[str, Any]:
    """Write the game's archive, verify it (``harbormaster verify``: chain, replay, every decision again),
    upload it to the bucket if one is configured, mark it verified in the index and trim the game from
    Redis if nothing will read it there again.

    One writer at a time owns a game's archive (``archive_lease``): a second writer leaves it to the first
    (``"busy"``), and an archive once verified is returned as it is, never written again, so a late writer
    cannot replace a good file with one read while the game was being trimmed. ``owner``: the archive
    job's id (``archive_lease``)."""
    if store.meta(game_id).archive:  # trimmed already: its archive was verified before
        return archived(store.redis, [game_id]).get(game_id, {})
    with archive_lease(store.redis, game_id, owner) as token:
        if token is None:
            log.info("archive_busy", game_id=game_id)
            return archived(store.redis, [game_id]).get(game_id, {}) | {"busy": True}
        entry = _archive_owned(store, game_id, archive_dir, token)
    if entry.get("verified"):
        entry["trimmed"] = bool(trim_archived(store, [game_id]))
    return entry


def _archive_owned(store: EventStore, game_id: str, archive_dir: str | Path, token: str) -> dict[str, Any]:
    current = archived(store.redis, [game_id]).get(game_id)
    if current is not None and current.get("verified"):
        return current  # nothing verified is ever replaced
    if store.meta(game_id).status != "finished":
        raise NotFinished(f"game {game_id} is still being played: it is archived when it ends")
    entry = write_archive(store, game_id, archive_dir)
    report = verify_file(Path(entry["file"]), store.games)
    if not (report.ok and report.finished):
        log.error("archive_unverified", game_id=game_id, problems=report.problems[:5])
        return entry
    bucket = configured_bucket()
    if bucket is not None:
        try:
            entry["object"] = bucket.upload(Path(entry["file"]))
        except BucketError as exc:  # kept in Redis, unverified: archive_missing uploads it again
            log.error("archive_not_uploaded", game_id=game_id, error=str(exc))
            return entry | {"upload_failed": str(exc)[:300]}
    entry["verified"] = True
    if not set_entry_if_owner(store.redis, game_id, token, entry):
        log.warning("archive_lease_lost", game_id=game_id)  # another writer's verified entry stands
        return archived(store.redis, [game_id]).get(game_id, {})
    store.redis.zrem(keys.ARCHIVE_PENDING, game_id)  # lost to a crash: serve's pass finds it verified
    queue_commands_leaf(store.redis, game_id, Path(entry["file"]), entry["last_seq"])
    return entry


def queue_commands_leaf(client: Any, game_id: str, path: Path, last_seq: int) -> None:
    """Ask the service's log to hold the digest of the game's command records, which sit beside its hash chain
    (who sent each command, its seat, origin, id and result): ``verify --log`` holds the export to it."""
    lines = [raw for raw in archive_lines(str(path)) if isinstance(_line(raw), CommandLine)]
    digest = leaves.commands_digest(lines)
    enqueue(
        client, leaves.Commands(stream="game", id=game_id, last_seq=last_seq, count=len(lines), digest=digest)
    )


def _line(raw: bytes) -> object:
    try:
        return LINE_DECODER.decode(raw)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None


OUTAGE_S = 60.0
"""How long the archive job rides out a Redis gone mid-job (``serve`` starts it again in seconds). Raising
at once left the job to rq, which cannot record a failure without Redis: the job stayed ``started`` in rq's
registry, so no trigger enqueued it again, and the game had no verified archive (for minutes, until rq
found the job abandoned; found by the tournament chaos run)."""


def run_archive_job(
    redis_url: str, game_id: str, archive_dir: str, plugins: tuple[str, ...] = ()
) -> dict[str, Any]:
    """The rq job: archive one finished game (again if asked: the file is rewritten byte for byte). Redis
    gone is waited out for ``OUTAGE_S`` (each attempt takes back its own lease: ``archive_lease``)."""
    deadline = time.monotonic() + OUTAGE_S
    while True:
        try:
            return _archive_job(redis_url, game_id, archive_dir, plugins)
        except UNREACHABLE as exc:
            if time.monotonic() >= deadline:
                raise  # rq tries the job again
            log.warning("archive_waits_for_redis", game_id=game_id, error=str(exc) or type(exc).__name__)
            wait_for_redis(OUTAGE_PAUSE_S)


OUTAGE_PAUSE_S = 0.5


def wait_for_redis(seconds: float) -> None:
    """The pause between attempts while Redis is gone (a test's hook starts it again here)."""
    time.sleep(seconds)


def _archive_job(redis_url: str, game_id: str, archive_dir: str, plugins: tuple[str, ...]) -> dict[str, Any]:
    client = connect(redis_url)  # the game data: a Cluster client on a Cluster
    try:
        store = EventStore(client, games_with_plugins(tuple(plugins)))
        # Under the job's id: a retry after a killed attempt takes back that attempt's lease.
        entry = archive_game(store, game_id, archive_dir, owner=archive_job_id(game_id))
        log.info("game_archived", game_id=game_id, **entry)
        return entry
    except TRANSIENT:
        raise  # Redis gone: waited out above; refusing writes: rq tries the job again
    except Exception as exc:  # the game's own fault: marked, so no trigger enqueues it again
        log.exception("archive_failed", game_id=game_id)
        mark_archive_failed(client, game_id, failure_reason(exc))
        return {"failed": failure_reason(exc)}
    finally:
        client.close()
