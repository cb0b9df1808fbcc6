"""``serve``'s pass over finished games with no verified archive: enqueue the archive job the fold worker's
hook should have (issue 42: Redis killed about when a game ended took the hook's enqueue with it, and the
tournament could not verify).

The games come from ``keys.ARCHIVE_PENDING``, which ``EventStore.mark_finished`` fills as a game leaves the
live index, scored by when the pass may first look (a grace after the end, in which the hook wins), and
which the archive job empties once the archive verifies: a pass reads only the games whose archive is due,
never the list of every game. A duplicate of the hook's job is harmless: one writer at a time owns a game's
archive (``archive_lease``) and a verified archive is never replaced (``services/archive.py``).
"""

from __future__ import annotations

import json
from typing import Any

import structlog
from rq import Queue

from events import keys
from services.bootstrap import Services
from workers.jobs.archive_trigger import ARCHIVE_QUEUE, enqueue_archive

log = structlog.get_logger("archive_reconcile")

RETRY_AFTER_MS = 600_000
"""How long a game waits for the next look once the pass saw it (its job queued, running or enqueued now):
the archive lease's length, so a job that died holding it is tried again once the lease ran out, and an
archive that keeps failing to verify is written again every ten minutes, not every pass."""

PAGE = 200
"""At most this many due games a pass (the rest come at the next one, seconds later)."""


def reconcile_archives(services: Services, url: str, now_ms: int, page: int = PAGE) -> list[str]:
    """Enqueue the archive job of each finished game due (``keys.ARCHIVE_PENDING``) that has no verified
    archive, no failure mark and no job queued or running (the job reads the game on ``url``); returns their
    ids. A game verified or marked
    failed leaves the set; every other one due is looked at again ``RETRY_AFTER_MS`` later."""
    raw = services.redis.zrangebyscore(keys.ARCHIVE_PENDING, "-inf", now_ms, start=0, num=page)
    game_ids = [g.decode() if isinstance(g, bytes) else str(g) for g in raw]
    folder = services.settings.archive_dir
    if not game_ids or folder is None or services.rq is None:
        if game_ids:  # archives switched off: nothing will ever be archived, so nothing is kept waiting
            services.redis.zrem(keys.ARCHIVE_PENDING, *game_ids)
        return []
    settled = _settled(services.redis, game_ids)
    if settled:
        services.redis.zrem(keys.ARCHIVE_PENDING, *settled)
    queue = Queue(ARCHIVE_QUEUE, connection=services.rq)
    enqueued = []
    for game_id in game_ids:
        if game_id in settled:
            continue
        # First the next look (XX: an archive that verified meanwhile stays out), then the job: a pass cut
        # off between the two leaves the game to a pass ten minutes on, never to one enqueueing every time.
        services.redis.zadd(keys.ARCHIVE_PENDING, {game_id: now_ms + RETRY_AFTER_MS}, xx=True)
        try:
            done = enqueue_archive(
                services.redis, queue, url, game_id, str(folder), services.settings.game_plugins
            )
        except ValueError as exc:  # an index entry that does not parse: said, and looked at again later
            log.warning("archive_reconcile_skipped", game_id=game_id, error=str(exc))
            continue
        if done:
            enqueued.append(game_id)
    if enqueued:
        log.info("archives_reconciled", enqueued=len(enqueued), games=enqueued[:10])
    return enqueued


def _settled(client: Any, game_ids: list[str]) -> set[str]:
    """Those of ``game_ids`` with a verified archive or a failure mark (a failed job is not tried again: the
    mark's own rule, ``mark_archive_failed``)."""
    pipe = client.pipeline(transaction=False)
    pipe.hmget(keys.ARCHIVE_INDEX, game_ids)
    pipe.hmget(keys.ARCHIVE_FAILED, game_ids)
    entries, failures = pipe.execute()
    return {
        game_id
        for game_id, entry, failure in zip(game_ids, entries, failures, strict=True)
        if failure is not None or _verified(entry)
    }


def _verified(entry: bytes | None) -> bool:
    """An index entry that says verified; a record that does not parse is not (its archive is written again,
    which replaces it)."""
    if entry is None:
        return False
    try:
        parsed = json.loads(entry)
    except ValueError:
        return False
    return isinstance(parsed, dict) and parsed.get("verified") is True
