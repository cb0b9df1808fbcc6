"""A recorded round's archived games trimmed from Redis in batches (the round job's part of the trims;
``archive_trigger.trim_archived`` is the archive job's, one game at a time).

The same checks and the same owner as ``trim_archived``: an archive verified at the game's last position,
a finished tournament game whose table is recorded, trimmed only by whoever holds its archive lease. On a
standalone Redis they cost a few round trips a batch of ``TRIM_BATCH`` games instead of six a game (the
index entries; every meta hash, position and recorded mark; the leases; the trims in one transaction; the
leases given back). A Cluster keeps each game's keys in its own slot, where no transaction spans games:
there, each game is trimmed on its own, as before.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from events.archived import queue_trim
from events.store import EventStore, meta_from_hash, queue_meta_read
from workers.jobs.archive_trigger import (
    ARCHIVE_INDEX,
    ARCHIVE_LEASE_MS,
    archive_lease_key,
    recorded_key,
    trim_archived,
    trim_enabled,
)
from workers.jobs.fan_out import chunks, each
from workers.jobs.ownership import release_many, take_many

TRIM_BATCH = 256


def trim_recorded(store: EventStore, tournament_id: str, game_ids: Sequence[str]) -> list[str]:
    """Trim those of ``game_ids`` (the tournament's games just recorded) that may be; returns them."""
    if not trim_enabled() or not game_ids:
        return []
    if not hasattr(store.redis, "connection_pool"):  # a Cluster client (a pool per node)
        return [g for part in each(lambda part: trim_archived(store, part), chunks(game_ids)) for g in part]
    trimmed: list[str] = []
    for start in range(0, len(game_ids), TRIM_BATCH):
        trimmed += _trim_batch(store.redis, tournament_id, game_ids[start : start + TRIM_BATCH])
    return trimmed


def _trim_batch(client: Any, tournament_id: str, game_ids: Sequence[str]) -> list[str]:
    due = _due(client, tournament_id, game_ids)
    if not due:
        return []
    token, taken = take_many(client, [archive_lease_key(g) for g in due], ARCHIVE_LEASE_MS)
    owned = [g for g in due if archive_lease_key(g) in set(taken)]  # the others: their writer trims them
    try:
        if owned:
            pipe = client.pipeline(transaction=True)
            for game_id in owned:
                queue_trim(pipe, game_id, *due[game_id])
            pipe.execute()
    finally:
        release_many(client, taken, token)
    return owned


def _due(client: Any, tournament_id: str, game_ids: Sequence[str]) -> dict[str, tuple[str, bytes | None]]:
    """The games to trim, each with its archive file and position: ``trim_archived``'s checks, read in
    two round trips."""
    entries = client.hmget(ARCHIVE_INDEX, list(game_ids))
    verified = [(g, json.loads(raw)) for g, raw in zip(game_ids, entries, strict=True) if raw]
    verified = [(g, entry) for g, entry in verified if entry.get("verified") and not entry.get("conflict")]
    if not verified:
        return {}
    pipe = client.pipeline(transaction=False)
    for game_id, _ in verified:
        queue_meta_read(pipe, game_id)
        pipe.sismember(recorded_key(tournament_id), game_id)
    replies = pipe.execute()
    due = {}
    for index, (game_id, entry) in enumerate(verified):
        raw, position, recorded = replies[3 * index : 3 * index + 3]
        if not raw or b"header" not in raw:
            continue
        meta = meta_from_hash(raw, position)
        if meta.archive or meta.status != "finished" or meta.last_seq != entry["last_seq"]:
            continue
        if meta.tournament and recorded:  # only a tournament's games, once recorded
            due[game_id] = (entry["file"], position)
    return due
