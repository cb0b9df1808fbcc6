"""A watched game's feed loaded from the store: its header, the viewers' delay, where its command log stands,
and every event so far (from Redis, or from its archive file once it was trimmed)."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from domain.engine import Game
from events import codec, keys
from events.errors import UnknownGame
from events.store import meta_from_hash, queue_meta_read
from services.gateway.feeds.archived_feeds import archived_events
from services.gateway.feeds.fanout import FeedStats, GameFeed, spectating_key

EVENTS_A_READ = 2000


async def load_feed(
    redis: Any, games: Mapping[str, Game[Any, Any, Any, Any]], stats: FeedStats, game_id: str
) -> GameFeed:
    """The game's feed as the store has it now. Raises ``UnknownGame``."""
    pipe = redis.pipeline(transaction=False)
    queue_meta_read(pipe, game_id)
    raw, position = await pipe.execute()
    if not raw or b"header" not in raw:
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
