"""The hub of a gateway process: its ``GameFeed`` per watched game, their reader tasks, idle sweeping.

See ``fanout.py`` for what a feed does with what its reader reads.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

import structlog

from domain.engine import Game
from events import codec, keys
from events.errors import UnknownGame
from events.store import meta_from_hash, queue_meta_read
from services.gateway.fanout import (
    READ_BLOCK_MS,
    TICK_SECONDS,
    FeedStats,
    GameFeed,
    spectating_key,
)

log = structlog.get_logger("fanout")


class FeedHub:
    """The feeds of one gateway process, created on first use and dropped when idle."""

    def __init__(self, redis: Any, reader_redis: Any, games: Mapping[str, Game[Any, Any, Any, Any]]) -> None:
        self.redis = redis
        self.reader_redis = reader_redis
        self.games = games
        self.feeds: dict[str, GameFeed] = {}
        self.locks: dict[str, asyncio.Lock] = {}
        self.stats = FeedStats()
        self._janitor: asyncio.Task[None] | None = None
        self._tickers: set[asyncio.Task[None]] = set()

    def start(self) -> None:
        self._janitor = asyncio.create_task(self._sweep())

    async def stop(self) -> None:
        tasks = [f.task for f in self.feeds.values() if f.task is not None] + list(self._tickers)
        if self._janitor is not None:
            tasks.append(self._janitor)
        for feed in self.feeds.values():
            feed.closed = True
        for task in tasks:
            task.cancel()
        if tasks:  # a reader inside XREAD BLOCK may take a moment to notice; never wait forever
            await asyncio.wait(tasks, timeout=2)
        self.feeds.clear()

    @property
    def viewers(self) -> int:
        return sum(len(f.viewers) for f in self.feeds.values())

    async def feed(self, game_id: str) -> GameFeed:
        """The game's feed, loaded and reading. Raises ``UnknownGame``."""
        feed = self.feeds.get(game_id)
        if feed is not None:
            feed.touch()
            return feed
        lock = self.locks.setdefault(game_id, asyncio.Lock())
        async with lock:
            feed = self.feeds.get(game_id)
            if feed is None:
                feed = await self._load(game_id)
                self.feeds[game_id] = feed
                feed.task = asyncio.create_task(self._read(feed), name=f"feed-{game_id}")
                if feed.delay_s > 0:
                    self._tickers.add(asyncio.create_task(self._tick(feed)))
        self.locks.pop(game_id, None)
        return feed

    async def _load(self, game_id: str) -> GameFeed:
        pipe = self.redis.pipeline(transaction=False)
        queue_meta_read(pipe, game_id)
        raw, position = await pipe.execute()
        if not raw or b"header" not in raw:
            raise UnknownGame(game_id)
        meta = meta_from_hash(raw, position)
        game = self.games.get(meta.header.game)
        if game is None:
            raise UnknownGame(f"{game_id} is a game of unknown type {meta.header.game!r}")
        feed = GameFeed(game_id, game, meta, self.stats)
        delay = await self.redis.hget(spectating_key(game_id), "delay_s")
        feed.delay_s = float(delay) if delay else 0.0
        last = await self.redis.xrevrange(keys.commands(game_id), count=1)
        feed.commands_cursor = last[0][0] if last else b"0-0"
        after = 0
        while True:
            batch = await self.redis.xrange(keys.events(game_id), min=f"({after}-0", max="+", count=2000)
            for _, fields in batch:
                feed.add(codec.decode_envelope(fields[b"e"]))
            if len(batch) < 2000:
                return feed
            after = feed.seq

    async def _read(self, feed: GameFeed) -> None:
        streams_e, streams_c = keys.events(feed.game_id), keys.commands(feed.game_id)
        while not feed.closed:
            try:
                reply = await self.reader_redis.xread(
                    {streams_e: f"{feed.seq}-0", streams_c: feed.commands_cursor}, block=READ_BLOCK_MS
                )
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                if feed.closed:
                    return
                log.warning("feed_read_failed", game_id=feed.game_id, error=str(exc))
                await asyncio.sleep(0.5)
                continue
            self._apply(feed, reply or [])

    def _apply(self, feed: GameFeed, reply: list[Any]) -> None:
        """Fold events first, then settle command results (the append wrote both atomically): an applied
        command's record rides on its last event, a rejection's is in the command log."""
        by_stream = {stream: items for stream, items in reply}
        new = []
        applied = []
        for _, fields in by_stream.get(keys.events(feed.game_id).encode(), []):
            entry = feed.add(codec.decode_envelope(fields[b"e"]))
            if entry is not None:
                new.append(entry)
            if b"r" in fields:
                applied.append(codec.decode_record(fields[b"r"]))
        if new:
            feed.publish(new)
            feed.changed.set()
            feed.changed = asyncio.Event()
        for record in applied:
            feed.settle(record)
        for entry_id, fields in by_stream.get(keys.commands(feed.game_id).encode(), []):
            feed.commands_cursor = entry_id
            feed.settle(codec.decode_record(fields[b"r"]))

    async def _tick(self, feed: GameFeed) -> None:
        """Release events to spectators of a game delayed in seconds, as their time comes."""
        while not feed.closed:
            await asyncio.sleep(TICK_SECONDS)
            if not feed.closed:
                feed.publish([])

    async def _sweep(self) -> None:
        while True:
            await asyncio.sleep(5)
            for game_id, feed in list(self.feeds.items()):
                if feed.idle():
                    self.feeds.pop(game_id, None)
                    feed.closed = True
                    if feed.task is not None:
                        feed.task.cancel()
