"""A watched game's feed loaded from the store: its header, the viewers' delay, where its command log stands,
and every event so far (from Redis, or from its archive file once it was trimmed: ``services/archive.py``)."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

import structlog

from domain.engine import Game
from events import codec, keys
from events.archived import archived_envelopes
from events.envelope import Envelope
from events.errors import UnknownGame
from events.store import GameMeta, meta_from_hash, queue_meta_read
from services.gateway.feeds.fanout import FeedStats, GameFeed, spectating_key

log = structlog.get_logger("fanout")

EVENTS_A_READ = 2000


async def load_feed(
    redis: Any, games: Mapping[str, Game[Any, Any, Any, Any]], stats: FeedStats, game_id: str
) -> GameFeed:
    """The game's feed as the store has it now. Raises ``UnknownGame``."""
    pipe = redis.pipeline(transaction=False)
    queue_meta_read(pipe, game_id)
    raw, position = await pipe.execute()
    if not raw or b"header" not in raw or b"creating" in raw:  # not yet whole (services/game_creation.py)
        raise UnknownGame(game_id)
    meta = meta_from_hash(raw, position)
    game = games.get(meta.header.game)
    if game is None:
        raise UnknownGame(f"{game_id} is a game of unknown type {meta.header.game!r}")
    feed = GameFeed(game_id, game, meta, stats)
    delay = await redis.hget(spectating_key(game_id), "delay_s")
    feed.delay_s = float(delay) if delay else 0.0
    last = await redis.xrevrange(keys.commands(game_id), count=1)
    feed.commands_cursor = last[0][0] if last else b"0-0"
    if meta.archive:  # trimmed from Redis once archived: its events are in the file alone
        for envelope in await asyncio.to_thread(archived_events, meta):
            feed.add(envelope)
        return feed
    after = 0
    while True:
        batch = await redis.xrange(keys.events(game_id), min=f"({after}-0", max="+", count=EVENTS_A_READ)
        for _, fields in batch:
            feed.add(codec.decode_envelope(fields[b"e"]))
        if len(batch) < EVENTS_A_READ:
            return feed
        after = feed.seq


def archived_events(meta: GameMeta) -> list[Envelope]:
    """A trimmed game's events from its archive file (read off the event loop), which must end at the
    position Redis kept; a file missing or cut short makes the game unknown here, never a 500."""
    try:
        envelopes = list(archived_envelopes(meta.header, meta.archive))
    except (OSError, ValueError, KeyError) as exc:
        log.error("archive_unreadable", game_id=meta.header.game_id, file=meta.archive, error=str(exc))
        raise UnknownGame(f"{meta.header.game_id}: its archive cannot be read") from exc
    last = (envelopes[-1].seq, envelopes[-1].hash) if envelopes else (0, "")
    if last != (meta.last_seq, meta.last_hash):
        log.error("archive_short", game_id=meta.header.game_id, file=meta.archive, reaches=last[0])
        raise UnknownGame(f"{meta.header.game_id}: its archive does not reach seq {meta.last_seq}")
    return envelopes
