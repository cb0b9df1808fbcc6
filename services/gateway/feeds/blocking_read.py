"""The hub's reader on one Redis: a single ``XREAD BLOCK`` over every watched game's two streams.

The read goes out on a link of its own (``events/transport/multiplexed.py``), so a gateway watching a
thousand games makes one blocking read, not a thousand. When a game starts being watched, the blocked read
is woken with ``CLIENT UNBLOCK`` so that the next read includes it. A reader on a Cluster, or on the plain
transport, polls instead (``polling.py``); the hub holds one or the other (``hub.FeedReader``).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

import hiredis
import structlog
from redis.exceptions import ResponseError

from events.transport.multiplexed import Multiplexed
from services.gateway.feeds.fanout import READ_BLOCK_MS
from services.gateway.feeds.feed_reads import (
    READ_COUNT,
    FeedReads,
    ReadsFor,
    by_key,
    growing_slices,
    stream_pairs,
)

if TYPE_CHECKING:
    from services.gateway.feeds.fanout import GameFeed

log = structlog.get_logger("fanout")

READ_GRACE_S = 10.0
"""How much longer than its ``BLOCK`` a read may take before the connection is deemed lost."""
FIRST_STREAMS = 2
"""The streams of a read applied before the first loop turn (one game's two): then 4, 8, 16 … (``run``)."""


class BlockingReader:
    """Reads every watched feed of ``hub`` with one blocking read at a time."""

    def __init__(self, hub: ReadsFor, redis_url: str) -> None:
        self.hub = hub
        self._reader_wire = Multiplexed(redis_url)
        self._control_wire = Multiplexed(redis_url)
        self._read_covers = 0
        """The hub's ``watched`` count the read in flight was built from."""
        self._reading = False

    async def run(self) -> None:
        """Read every watched game's news, one ``XREAD BLOCK`` over all their streams at a time, sent as soon
        as the last reply is applied (not at the end of the loop's turn) and its reply taken as it comes.

        Not sent ahead, before applying: a blocked read is answered with the one stream that woke it, one
        event a read; sent after, it finds the events of many games appended meanwhile.

        A reply is applied in growing slices (one game, then two, four …) with a turn of the loop between
        them: the moves its first frames prompt are read from their sockets and sent on to Redis while the
        rest are published, so the stages of a move overlap instead of passing one clump of every game's
        move from one process to the next (50 games: ~15 % more moves/s; a few turns more per read).
        Ordering holds: a game's two streams come in the order asked, and the next read waits for all."""
        hub = self.hub
        reads: FeedReads | None = None
        while True:
            if reads is None or not reads.current(hub.watched):
                feeds = await hub.live_feeds()
                reads = FeedReads(feeds, hub.watched, READ_COUNT, READ_BLOCK_MS)
            try:
                await self._reader_wire.connect()
                streams = await self._read(reads)
            except Exception as exc:  # Redis gone or silent: a new connection for the next read
                hub.read_failed(len(reads.feeds), exc)
                await self._reader_wire.close()
                await asyncio.sleep(0.5)
                continue
            for part, (start, stop) in enumerate(growing_slices(len(streams), FIRST_STREAMS)):
                if part:
                    await asyncio.sleep(0)  # a loop turn: the sockets' replies to what was just published
                hub.apply_streams(reads.by_key, streams[start:stop])

    async def _read(self, reads: FeedReads) -> list[Any]:
        """One ``XREAD BLOCK`` over the feeds' streams, written at once; ``watched`` may cut it short."""
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

    async def read_now(self, feeds: list[GameFeed]) -> list[Any]:
        """The feeds' news now, without blocking, on the control link (a resting feed's catch-up)."""
        cursors = [cursor for feed in feeds for cursor in (feed.events_cursor, feed.commands_cursor)]
        call = ("XREAD", "COUNT", READ_COUNT, "STREAMS", *by_key(feeds), *cursors)
        return stream_pairs(await self._control_wire.call(*call))

    async def watched(self) -> None:
        """Make the reader start a read that includes every feed added so far.

        ``CLIENT UNBLOCK`` only wakes a read Redis is blocked in; a read sent but not yet blocked (or
        built before the new feed) is tried again a moment later, until the reader has moved on.
        """
        wanted = self.hub.watched
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

    def expect_news(self, game_id: str) -> None:
        """Nothing to do: the one blocking read covers every game."""

    def forget(self, game_id: str) -> None:
        """Nothing kept per game."""

    async def close(self) -> None:
        await self._reader_wire.close()
        await self._control_wire.close()
