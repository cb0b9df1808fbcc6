"""The hub's reader on a Redis Cluster (or on the plain transport): each watched game polled when due.

On a Cluster one ``XREAD`` cannot span the slots of several games, and a blocked one holds its connection,
so the reader polls instead: each round reads the games that are due, with non-blocking single-key
``XREAD``s sent to each game's master on that master's own connection, every master at once
(``events/transport/multiplexed_cluster.py``). On one Redis the hub blocks instead (``blocking_read.py``).

When each game is due (``PollSchedule``, pure: the caller passes the clock): a read that found news is
followed by the next after ``POLL_FIRST_S`` (a game in play is followed closely), a quiet read doubles the
pause up to ``POLL_MOST_S`` (a quiet game costs about ``2 / POLL_MOST_S`` reads a second). A command
submitted through this gateway, or a game newly watched, makes that game due at once. So the reads follow
the games' activity, not the number watched.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from events import keys
from events.transport.multiplexed_cluster import ClusterMultiplexed
from events.transport.plain import PlainLink
from services.gateway.feeds.feed_reads import READ_COUNT, ReadsFor, by_key, stream_pairs

if TYPE_CHECKING:
    from services.gateway.feeds.fanout import GameFeed

POLL_FIRST_S = 0.005
"""The pause after a read that found news."""
POLL_MOST_S = 0.08
"""The longest pause of a quiet game (the most a spectator waits for a move, beyond Redis and the fold)."""


class PollSchedule:
    """Each watched game's next read and current pause."""

    def __init__(self) -> None:
        self._next: dict[str, float] = {}
        self._pause: dict[str, float] = {}

    def due(self, game_ids: Iterable[str], now: float) -> list[str]:
        """The games to read now (a game never read is due)."""
        return [g for g in game_ids if self._next.get(g, 0.0) <= now]

    def next_at(self, game_ids: Iterable[str]) -> float:
        """When the first of these games is due."""
        return min((self._next.get(g, 0.0) for g in game_ids), default=0.0)

    def read(self, game_id: str, news: bool, now: float) -> None:
        """Note a read of the game made at ``now``, and whether it found anything."""
        pause = POLL_FIRST_S if news else min(POLL_MOST_S, 2 * self._pause.get(game_id, POLL_FIRST_S / 2))
        self._pause[game_id] = pause
        self._next[game_id] = now + pause

    def wake(self, game_id: str) -> None:
        """The game is due at once, and followed closely: news is expected."""
        self._next[game_id] = 0.0
        self._pause[game_id] = POLL_FIRST_S / 2

    def forget(self, game_id: str) -> None:
        self._next.pop(game_id, None)
        self._pause.pop(game_id, None)


class PolledReader:
    """Reads the watched feeds of ``hub`` that are due, on ``nodes`` (a Cluster's masters, or a plain link)."""

    def __init__(self, hub: ReadsFor, nodes: ClusterMultiplexed | PlainLink) -> None:
        self.hub = hub
        self.nodes = nodes
        self.schedule = PollSchedule()
        self._news = asyncio.Event()
        """Cuts the wait for the next game due short."""

    async def run(self) -> None:
        """Read the games that are due, then wait until the next is due or news is expected."""
        hub, loop = self.hub, asyncio.get_running_loop()
        while True:
            self._news.clear()
            feeds = {f.game_id: f for f in await hub.live_feeds()}
            now = loop.time()
            due = [feeds[game_id] for game_id in self.schedule.due(feeds, now)]
            if not due:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._news.wait(), self.schedule.next_at(feeds) - now)
                continue
            streams_of = by_key(due)
            try:
                streams = await self.read_now(due)
            except Exception as exc:  # every master failed: the slot map is read again meanwhile
                hub.read_failed(len(due), exc)
                await asyncio.sleep(0.5)
                continue
            news = {streams_of[stream][0].game_id for stream, items in streams if items}
            now = loop.time()
            for feed in due:
                self.schedule.read(feed.game_id, feed.game_id in news, now)
            hub.apply_streams(streams_of, streams)

    async def read_now(self, feeds: list[GameFeed]) -> list[Any]:
        """Each game's command log, then its events, each on its game's master, all masters at once. One key
        per read: a read of both streams is refused ``TRYAGAIN`` while the game's slot is half migrated and
        its command log (written only by rejections) does not exist. The log is read first and applied
        last, so a rejection is never settled before the events appended before it. A master that fails
        costs only its own games' reads this round (they are read again next round)."""
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
            self.hub.read_failed(len(failed) // 2, failed[0])  # the replica may lack the master's last writes
            if len(failed) == len(replies):
                raise failed[0]
        events = [
            p for reply in replies[1::2] if not isinstance(reply, Exception) for p in stream_pairs(reply)
        ]
        logs = [p for reply in replies[::2] if not isinstance(reply, Exception) for p in stream_pairs(reply)]
        return events + logs

    async def watched(self) -> None:
        """A feed was added: read the games due now."""
        self._news.set()

    def expect_news(self, game_id: str) -> None:
        """Read the game now (a command was submitted to it)."""
        self.schedule.wake(game_id)
        self._news.set()

    def forget(self, game_id: str) -> None:
        self.schedule.forget(game_id)

    async def close(self) -> None:
        await self.nodes.close()
