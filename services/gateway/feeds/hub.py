"""The hub of a gateway process: its ``GameFeed`` per watched game, the one reader of them all, idle sweeping.

One reader reads every watched game (``FeedReader``): on one Redis a single blocking read of them all
(``blocking_read.py``), on a Redis Cluster or the plain transport a poll of each game when it is due
(``polling.py``). The hub applies what it reads; see ``fanout.py`` for what a feed does with it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any, Protocol

import structlog

from domain.engine import Game
from events import codec
from events.transport.multiplexed_cluster import ClusterMultiplexed, SlotMap
from events.transport.plain import PlainLink
from services.gateway.feeds.blocking_read import BlockingReader
from services.gateway.feeds.fanout import IDLE_SECONDS, TICK_SECONDS, FeedStats, GameFeed
from services.gateway.feeds.feed_check import FeedChecks
from services.gateway.feeds.feed_load import load_feed
from services.gateway.feeds.feed_reads import READ_COUNT, by_key, entry_fields, event_fields
from services.gateway.feeds.polling import PolledReader
from services.gateway.feeds.viewer import flush_direct_writes

log = structlog.get_logger("fanout")

REST_SECONDS = 5.0
"""A feed nobody has used for this long rests: it is not read until it is used again."""
SWEEP_SECONDS = 5.0
"""How often feeds are looked over for resting and dropping."""


class FeedReader(Protocol):
    """What reads the hub's feeds: ``blocking_read.BlockingReader`` or ``polling.PolledReader``."""

    async def run(self) -> None:
        """Read the live feeds' news and hand it to ``FeedHub.apply_streams``, for as long as the hub runs."""

    async def read_now(self, feeds: list[GameFeed]) -> list[Any]:
        """The feeds' news now: ``(stream, entries)`` pairs, events before command logs."""

    async def watched(self) -> None:
        """A feed was added (or woken): the next read includes it."""

    def expect_news(self, game_id: str) -> None:
        """A command was submitted to the game (``commands.submit``)."""

    def forget(self, game_id: str) -> None:
        """The game's feed was dropped."""

    async def close(self) -> None:
        """Drop the reader's connections."""


class FeedHub:
    """The feeds of one gateway process, created on first use and dropped when idle."""

    def __init__(
        self,
        redis: Any,
        redis_url: str,
        games: Mapping[str, Game[Any, Any, Any, Any]],
        slots: SlotMap | None = None,
        polled: PlainLink | None = None,
    ) -> None:
        """``slots``: the Cluster's slot map when ``redis_url`` names a Cluster (reads are then polled);
        ``polled``: a plain link to poll every feed on instead (``HARBORMASTER_TRANSPORT=plain``)."""
        self.redis = redis
        self.games = games
        self.feeds: dict[str, GameFeed] = {}
        self.locks: dict[str, asyncio.Lock] = {}
        self.stats = FeedStats()
        nodes = polled or (ClusterMultiplexed(redis_url, slots) if slots is not None else None)
        self.reader: FeedReader = (
            PolledReader(self, nodes) if nodes is not None else BlockingReader(self, redis_url)
        )
        self.nodes = nodes
        """When polling (a Cluster, or the plain transport): the link each game's reads go out on."""
        self.watched = 0
        """Bumped whenever a feed is added: the reader's read must include it."""
        self._some_feed = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []
        self._tickers: set[asyncio.Task[None]] = set()
        self.checks = FeedChecks(redis, self.feeds, self._load, self._watch)  # none ahead of the store

    def start(self) -> None:
        self._tasks = [
            asyncio.create_task(self._sweep()),
            asyncio.create_task(self.checks.run(), name="feed-checks"),
            asyncio.create_task(self.reader.run(), name="feeds"),
        ]

    async def stop(self) -> None:
        tasks = self._tasks + list(self._tickers)
        for feed in self.feeds.values():
            feed.closed = True
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=2)
        await self.reader.close()
        self.feeds.clear()

    async def feed(self, game_id: str) -> GameFeed:
        """The game's feed, loaded and read (a resting feed caught up first). Raises ``UnknownGame``."""
        feed = self.feeds.get(game_id)
        if feed is not None and not feed.resting:
            feed.touch()
            return feed
        lock = self.locks.setdefault(game_id, asyncio.Lock())
        async with lock:
            feed = self.feeds.get(game_id)
            if feed is None:
                feed = await self._load(game_id)
                self.feeds[game_id] = feed
                if feed.delay_s > 0:
                    self._tickers.add(asyncio.create_task(self._tick(feed)))
                await self._watch()
            elif feed.resting:
                await self._catch_up(feed)
                feed.resting = False
                await self._watch()
            feed.touch()
        self.locks.pop(game_id, None)
        return feed

    async def _watch(self) -> None:
        """Have the reader's next read include the feeds added (or woken) so far."""
        self.watched += 1
        self._some_feed.set()
        await self.reader.watched()

    async def _catch_up(self, feed: GameFeed) -> None:
        """What a resting feed missed, read and applied before it is used (and read with the others) again."""
        streams_of = by_key([feed])
        while not feed.closed:
            streams = await self.reader.read_now([feed])
            self.apply_streams(streams_of, streams)
            if all(len(items) < READ_COUNT for _, items in streams):
                return

    async def _load(self, game_id: str) -> GameFeed:
        return await load_feed(self.redis, self.games, self.stats, game_id)

    def read_failed(self, feeds: int, error: Exception) -> None:
        """The reader's read of ``feeds`` feeds failed (Redis gone or silent, or a Cluster's master down):
        the store may come back without its last seconds, so every feed is checked against it
        (``feed_check.py``)."""
        self.checks.wake()
        log.warning("feed_read_failed", feeds=feeds, error=str(error))

    async def live_feeds(self) -> list[GameFeed]:
        """The feeds to read (neither closed nor resting), once there is one."""
        while True:
            feeds = [feed for feed in self.feeds.values() if not feed.closed and not feed.resting]
            if feeds:
                return feeds
            self._some_feed.clear()
            await self._some_feed.wait()

    def apply_streams(self, by_key: dict[bytes, tuple[GameFeed, bool]], streams: list[Any]) -> None:
        for stream, items in streams:
            feed, events = by_key[stream]
            if not feed.closed:
                try:
                    self._apply(feed, events, items)
                except Exception:  # one game's bad entry must not stop the reader of every game
                    log.exception("feed_apply_failed", game_id=feed.game_id)
                    feed.closed = True
                    self.feeds.pop(feed.game_id, None)
                if feed.diverged:
                    self.checks.wake()
        flush_direct_writes()

    def _apply(self, feed: GameFeed, events: bool, items: list[Any]) -> None:
        """Fold new events (and settle the results riding on them), or settle rejections from the command
        log. Within one read Redis answers streams in the order asked: a game's events come before its
        command results, as the append wrote them."""
        if events:
            new, applied = [], []
            for _, flat in items:
                envelope, riding = event_fields(flat)
                entry = feed.add(codec.decode_envelope(envelope))
                if entry is not None:
                    new.append(entry)
                if riding is not None:
                    applied.append(codec.decode_record(riding))
            if new:
                feed.publish(new)
            for record in applied:
                feed.settle(record)
            return
        for entry_id, flat in items:
            feed.commands_cursor = entry_id
            feed.settle(codec.decode_record(entry_fields(flat)[b"r"]))

    async def _tick(self, feed: GameFeed) -> None:
        """Release events to spectators of a game delayed in seconds, as their time comes."""
        while not feed.closed:
            await asyncio.sleep(TICK_SECONDS)
            if not feed.closed:
                feed.publish([])

    async def _sweep(self) -> None:
        """Every ``SWEEP_SECONDS``, drop the feeds idle for ``IDLE_SECONDS`` and rest those unused for
        ``REST_SECONDS`` (a gateway that has served thousands of games reads only the few in use, not every
        cached one, with every read)."""
        while True:
            await asyncio.sleep(SWEEP_SECONDS)
            for game_id, feed in list(self.feeds.items()):
                if feed.unused(IDLE_SECONDS):
                    self.feeds.pop(game_id, None)
                    self.reader.forget(game_id)
                    feed.closed = True
                elif not feed.resting and feed.unused(REST_SECONDS):
                    feed.resting = True
