"""The hub of a gateway process: its ``GameFeed`` per watched game, the one reader of them all, idle sweeping.

One task reads every watched game: a single ``XREAD BLOCK`` over all their event and command-result streams
on a wire of its own (``wire.py``), so a gateway watching a thousand games makes one blocking read, not a
thousand. When a game starts being watched, the blocked read is woken with ``CLIENT UNBLOCK`` so that the
next read includes it. See ``fanout.py`` for what a feed does with what the reader reads.

On a Redis Cluster one ``XREAD`` cannot span the slots of several games, and a blocked one holds its
connection, so the reader polls instead: each round reads the games that are due (``polling.py``: soon
after news, up to ``POLL_MOST_S`` apart while quiet), with non-blocking single-key ``XREAD``s sent to each
game's master on that master's own connection, every master at once (``cluster_wire.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Mapping
from typing import Any

import hiredis
import structlog
from redis.exceptions import ResponseError

from domain.engine import Game
from events import codec, keys
from events.errors import UnknownGame
from events.store import meta_from_hash, queue_meta_read
from services.gateway.cluster_wire import ClusterWire, SlotMap
from services.gateway.fanout import (
    READ_BLOCK_MS,
    TICK_SECONDS,
    FeedStats,
    GameFeed,
    spectating_key,
)
from services.gateway.feed_reads import FeedReads, by_key, entry_fields, event_fields, stream_pairs
from services.gateway.polling import PollSchedule
from services.gateway.socket_writer import flush_direct_writes
from services.gateway.wire import Wire

log = structlog.get_logger("fanout")

READ_COUNT = 1000
"""The most entries one read takes from one stream (a game far behind catches up over several reads)."""
READ_GRACE_S = 10.0
"""How much longer than its ``BLOCK`` a read may take before the connection is deemed lost."""
REST_SECONDS = 5.0
"""A feed nobody has used for this long rests: it is not read until it is used again."""
SWEEP_SECONDS = 5.0
"""How often feeds are looked over for resting and dropping."""
FIRST_STREAMS = 2
"""The streams of a read applied before the first loop turn (one game's two): then 4, 8, 16 … (``_read_all``)."""


class FeedHub:
    """The feeds of one gateway process, created on first use and dropped when idle."""

    def __init__(
        self,
        redis: Any,
        redis_url: str,
        games: Mapping[str, Game[Any, Any, Any, Any]],
        slots: SlotMap | None = None,
    ) -> None:
        """``slots``: the Cluster's slot map when ``redis_url`` names a Cluster (reads are then polled)."""
        self.redis = redis
        self.games = games
        self.feeds: dict[str, GameFeed] = {}
        self.locks: dict[str, asyncio.Lock] = {}
        self.stats = FeedStats()
        self._reader_wire = Wire(redis_url)
        self._control_wire = Wire(redis_url)
        self.nodes = ClusterWire(redis_url, slots) if slots is not None else None
        """On a Cluster: each game's reads go to its master on this (``_reader_wire`` is then unused)."""
        self.schedule = PollSchedule()
        """On a Cluster: when each watched game is read next."""
        self._news = asyncio.Event()
        """Cuts a Cluster reader's wait short."""
        self._watched = 0
        """Bumped whenever a feed is added: the reader's read must include it."""
        self._read_covers = 0
        """The ``_watched`` count the read in flight was built from."""
        self._reading = False
        self._some_feed = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []
        self._tickers: set[asyncio.Task[None]] = set()

    def start(self) -> None:
        self._tasks = [
            asyncio.create_task(self._sweep()),
            asyncio.create_task(self._poll_all() if self.nodes else self._read_all(), name="feeds"),
        ]

    async def stop(self) -> None:
        tasks = self._tasks + list(self._tickers)
        for feed in self.feeds.values():
            feed.closed = True
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=2)
        await self._reader_wire.close()
        await self._control_wire.close()
        if self.nodes is not None:
            await self.nodes.close()
        self.feeds.clear()

    @property
    def viewers(self) -> int:
        return sum(len(f.viewers) for f in self.feeds.values())

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
                await self._watch(feed)
            elif feed.resting:
                await self._catch_up(feed)
                feed.resting = False
                await self._watch(feed)
            feed.touch()
        self.locks.pop(game_id, None)
        return feed

    async def _watch(self, feed: GameFeed) -> None:
        """Have the reader's next read include the feed."""
        self._watched += 1
        self._some_feed.set()
        await self._wake_reader()

    async def _catch_up(self, feed: GameFeed) -> None:
        """What a resting feed missed, read and applied before it is used (and read with the others) again."""
        streams_of = by_key([feed])
        while not feed.closed:
            if self.nodes is not None:
                streams = await self._read_nodes([feed])
            else:
                cursors = (feed.events_cursor, feed.commands_cursor)
                call = ("XREAD", "COUNT", READ_COUNT, "STREAMS", *streams_of, *cursors)
                streams = stream_pairs(await self._control_wire.call(*call))
            self._apply_streams(streams_of, streams)
            if all(len(items) < READ_COUNT for _, items in streams):
                return

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

    async def _wake_reader(self) -> None:
        """Make the reader start a read that includes every feed added so far.

        ``CLIENT UNBLOCK`` only wakes a read Redis is blocked in; a read sent but not yet blocked (or
        built before the new feed) is tried again a moment later, until the reader has moved on.
        """
        if self.nodes is not None:
            self.expect_news()
            return
        wanted = self._watched
        for _ in range(200):
            if not self._reading or self._read_covers >= wanted:
                return
            try:
                if await self._control_wire.call("CLIENT", "UNBLOCK", self._reader_wire.client_id):
                    return
            except Exception as exc:
                log.warning("feed_wake_failed", error=str(exc))
                return
            await asyncio.sleep(0.001)

    def expect_news(self, game_id: str | None = None) -> None:
        """On a Cluster, read the game now (a command was submitted to it), or the games due (one added)."""
        if self.nodes is None:  # one blocking read covers every game: nothing to schedule
            return
        if game_id is not None:
            self.schedule.wake(game_id)
        self._news.set()

    async def _read_all(self) -> None:
        """Read every watched game's news, one ``XREAD BLOCK`` over all their streams at a time, sent as soon
        as the last reply is applied (not at the end of the loop's turn) and its reply taken as it comes.

        Not sent ahead, before applying: a blocked read is answered with the one stream that woke it, one
        event a read; sent after, it finds the events of many games appended meanwhile.

        A reply is applied in growing slices (one game, then two, four …) with a turn of the loop between
        them: the moves its first frames prompt are read from their sockets and sent on to Redis while the
        rest are published, so the stages of a move overlap instead of passing one clump of every game's
        move from one process to the next (50 games: ~15 % more moves/s; a few turns more per read).
        Ordering holds: a game's two streams come in the order asked, and the next read waits for all."""
        reads: FeedReads | None = None
        while True:
            if reads is None or not reads.current(self._watched):
                feeds = [feed for feed in self.feeds.values() if not feed.closed and not feed.resting]
                if not feeds:
                    reads = None
                    self._some_feed.clear()
                    await self._some_feed.wait()
                    continue
                reads = FeedReads(feeds, self._watched, READ_COUNT, READ_BLOCK_MS)
            try:
                await self._reader_wire.connect()
                streams = await self._read(reads)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # Redis gone or silent: a new connection for the next read
                await self._reader_wire.close()
                log.warning("feed_read_failed", feeds=len(reads.feeds), error=str(exc))
                await asyncio.sleep(0.5)
                continue
            for part, (start, stop) in enumerate(growing_slices(len(streams), FIRST_STREAMS)):
                if part:
                    await asyncio.sleep(0)  # a loop turn: the sockets' replies to what was just published
                self._apply_streams(reads.by_key, streams[start:stop])

    async def _read(self, reads: FeedReads) -> list[Any]:
        """One ``XREAD BLOCK`` over the feeds' streams, written at once; ``_wake_reader`` may cut it short."""
        self._read_covers = reads.watched
        self._reading = True
        try:
            (future,) = self._reader_wire.send_packed(reads.command(), 1, at_once=True)
            async with asyncio.timeout(READ_BLOCK_MS / 1000 + READ_GRACE_S):  # no task of its own, unlike
                reply = await future  # ``wait_for`` (two more turns of the loop per read)
        finally:
            self._reading = False
        if isinstance(reply, hiredis.ReplyError):
            raise ResponseError(str(reply))
        return stream_pairs(reply)

    async def _poll_all(self) -> None:
        """On a Cluster: read the games that are due, then wait until the next is due or news is expected."""
        loop = asyncio.get_running_loop()
        while True:
            self._news.clear()
            feeds = {f.game_id: f for f in self.feeds.values() if not f.closed and not f.resting}
            if not feeds:
                self._some_feed.clear()
                await self._some_feed.wait()
                continue
            now = loop.time()
            due = [feeds[game_id] for game_id in self.schedule.due(feeds, now)]
            if not due:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._news.wait(), self.schedule.next_at(feeds) - now)
                continue
            streams_of = by_key(due)
            try:
                streams = await self._read_nodes(due)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # every master failed: the slot map is read again meanwhile
                log.warning("feed_read_failed", feeds=len(due), error=str(exc))
                await asyncio.sleep(0.5)
                continue
            news = {streams_of[stream][0].game_id for stream, items in streams if items}
            now = loop.time()
            for feed in due:
                self.schedule.read(feed.game_id, feed.game_id in news, now)
            self._apply_streams(streams_of, streams)

    def _apply_streams(self, by_key: dict[bytes, tuple[GameFeed, bool]], streams: list[Any]) -> None:
        for stream, items in streams:
            feed, events = by_key[stream]
            if not feed.closed:
                self._apply_safely(feed, events, items)
        flush_direct_writes()

    async def _read_nodes(self, feeds: list[GameFeed]) -> list[Any]:
        """On a Cluster: each game's command log, then its events, each on its game's master, all masters at
        once. One key per read: a read of both streams is refused ``TRYAGAIN`` while the game's slot is half
        migrated and its command log (written only by rejections) does not exist. The log is read first and
        applied last, so a rejection is never settled before the events appended before it. A master that
        fails costs only its own games' reads this round (they are read again next round)."""
        assert self.nodes is not None
        calls = [
            ("XREAD", "COUNT", READ_COUNT, "STREAMS", key, cursor)
            for feed in feeds
            for key, cursor in (
                (keys.commands(feed.game_id), feed.commands_cursor),
                (keys.events(feed.game_id), feed.events_cursor),
            )
        ]
        replies = await self.nodes.each(calls)
        failed = [reply for reply in replies if isinstance(reply, Exception)]
        if failed:  # a master down until its replica takes over: its games stay quiet meanwhile
            log.warning("feed_read_failed", feeds=len(failed) // 2, error=str(failed[0]))
            if len(failed) == len(replies):
                raise failed[0]
        events = [
            p for reply in replies[1::2] if not isinstance(reply, Exception) for p in stream_pairs(reply)
        ]
        logs = [p for reply in replies[::2] if not isinstance(reply, Exception) for p in stream_pairs(reply)]
        return events + logs

    def _apply_safely(self, feed: GameFeed, events: bool, items: list[Any]) -> None:
        """One game's bad entry must not stop the reader of every game."""
        try:
            self._apply(feed, events, items)
        except Exception:
            log.exception("feed_apply_failed", game_id=feed.game_id)
            feed.closed = True
            self.feeds.pop(feed.game_id, None)

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
        while True:
            await asyncio.sleep(SWEEP_SECONDS)
            self.sweep()

    def sweep(self) -> None:
        """Drop the feeds idle for ``IDLE_SECONDS``; rest those unused for ``REST_SECONDS`` (a gateway that
        has served thousands of games reads only the few in use, not every cached one, with every read)."""
        for game_id, feed in list(self.feeds.items()):
            if feed.idle():
                self.feeds.pop(game_id, None)
                self.schedule.forget(game_id)
                feed.closed = True
            elif not feed.resting and feed.unused(REST_SECONDS):
                feed.resting = True


def growing_slices(length: int, first: int) -> list[tuple[int, int]]:
    """``[0, length)`` cut into slices of ``first``, ``2 * first``, ``4 * first`` … items, in order."""
    slices, start, size = [], 0, max(1, first)
    while start < length:
        slices.append((start, min(length, start + size)))
        start, size = start + size, size * 2
    return slices
