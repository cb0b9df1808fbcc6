"""The hub's feeds checked against the store: after Redis lost its last seconds, none stays ahead of it.

A Redis that restarts on an append-only file missing its last writes (a power loss under ``appendfsync
everysec``), or a failover to a replica that lagged, holds fewer events than a feed folded: the feed's read
cursor then points past the stream's end, so it would read nothing until the game passed that point again,
and then events of another history. Its viewers would go on seeing moves that no longer exist.

So each feed's position (last sequence number and chain hash) is compared with the one the append script
keeps in the game's results hash: whenever the hub's read fails (Redis went away: it may come back older),
whenever an event read does not link to the feed's last one (``GameFeed.diverged``), and every
``CHECK_SECONDS`` in any case (a failover behind a proxy need not break the reader's connection). A feed
that the store is behind, or that holds another event at its last sequence number, is loaded again from
the store and takes its place (``GameFeed.rewind``): each viewer is sent a ``resync`` with the store's view.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from enum import Enum
from typing import TYPE_CHECKING, Any

import structlog

from events import codec, keys
from events.errors import UnknownGame

if TYPE_CHECKING:
    from services.gateway.feeds.fanout import GameFeed

log = structlog.get_logger("fanout")

CHECK_SECONDS = 15.0
"""How often every feed is checked against the store even when nothing failed."""
RETRY_FIRST_S = 0.5
RETRY_MOST_S = 5.0
"""A check that fails (Redis down, or still loading its data) is tried again after a back-off up to this."""


class Standing(Enum):
    """Where a feed stands against the store."""

    SAME = "same"
    AHEAD = "ahead"
    """The store holds more events: whether they follow the feed's last needs the store's event there."""
    STALE = "stale"
    """The store is behind the feed, or holds another event at the feed's last sequence number."""


def standing(seq: int, last_hash: str, position: bytes | None) -> Standing:
    """A feed at ``seq`` (``last_hash`` its last event's hash) against the store's ``b"<seq>:<hash>"``
    (``None``: the game is gone, created in the seconds the store lost)."""
    if position is None:
        return Standing.STALE
    stored, _, stored_hash = position.partition(b":")
    stored_seq = int(stored)
    if stored_seq > seq:
        return Standing.AHEAD
    if stored_seq == seq and stored_hash.decode() == last_hash:
        return Standing.SAME
    return Standing.STALE


async def stale_feeds(redis: Any, feeds: list[GameFeed]) -> list[GameFeed]:
    """The feeds the store is behind or on another history from: two round trips at most. Each feed's
    position is taken before asking: the reader may fold more events meanwhile."""
    held = [(feed, feed.seq, feed.entries[-1].envelope.hash if feed.entries else "") for feed in feeds]
    pipe = redis.pipeline(transaction=False)
    for feed, _, _ in held:
        pipe.hget(keys.results(feed.game_id), keys.POSITION_FIELD)
    positions = await pipe.execute()
    stale, ahead = [], []
    for (feed, seq, chain_hash), position in zip(held, positions, strict=True):
        verdict = standing(seq, chain_hash, position)
        if verdict is Standing.STALE:
            stale.append(feed)
        elif verdict is Standing.AHEAD and seq > 0:
            ahead.append((feed, seq, chain_hash))
    if ahead:  # the store went on: still from this feed's last event, or from an earlier one?
        pipe = redis.pipeline(transaction=False)
        for feed, seq, _ in ahead:
            pipe.xrange(keys.events(feed.game_id), min=f"{seq}-0", max=f"{seq}-0")
        for (feed, _, chain_hash), entries in zip(ahead, await pipe.execute(), strict=True):
            if not entries or codec.decode_envelope(entries[0][1][b"e"]).hash != chain_hash:
                stale.append(feed)
    return stale


class FeedChecks:
    """Runs the checks of a hub's feeds as a task of their own, when woken and every ``CHECK_SECONDS``."""

    def __init__(
        self,
        redis: Any,
        feeds: dict[str, GameFeed],
        load: Callable[[str], Awaitable[GameFeed]],
        rewound: Callable[[], Awaitable[None]],
    ) -> None:
        """``load``: a game's feed read afresh from the store; ``rewound``: called once feeds are rewound
        (the hub's read in flight has the old cursors: it makes a new one, as for a feed newly watched)."""
        self.redis = redis
        self.feeds = feeds
        self.load = load
        self.rewound = rewound
        self._due = asyncio.Event()

    def wake(self) -> None:
        """Check every feed soon (the hub's read failed, or an event did not link)."""
        self._due.set()

    async def run(self) -> None:
        wait_s = RETRY_FIRST_S
        while True:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(CHECK_SECONDS):
                    await self._due.wait()
            self._due.clear()
            try:
                await self.check()
            except Exception as exc:  # Redis away or loading: checked again once it answers
                log.info("feed_check_failed", error=str(exc) or type(exc).__name__, retry_in_s=wait_s)
                self._due.set()
                await asyncio.sleep(wait_s)
                wait_s = min(RETRY_MOST_S, wait_s * 2)
            else:
                wait_s = RETRY_FIRST_S

    async def check(self) -> None:
        """Check every feed; rewind those the store is behind."""
        feeds = [feed for feed in self.feeds.values() if not feed.closed]
        if not feeds:
            return
        rewound = False
        for feed in await stale_feeds(self.redis, feeds):
            if not feed.closed and await self._rewind(feed):
                rewound = True
        if rewound:
            await self.rewound()

    async def _rewind(self, feed: GameFeed) -> bool:
        held = feed.seq
        try:
            fresh = await self.load(feed.game_id)
        except UnknownGame:  # created in the seconds the store lost: nothing left to show
            log.warning("feed_game_lost", game_id=feed.game_id, held_seq=held)
            feed.closed = True
            self.feeds.pop(feed.game_id, None)
            return False
        feed.rewind(fresh)
        log.warning(
            "feed_rewound", game_id=feed.game_id, held_seq=held, store_seq=feed.seq, viewers=len(feed.viewers)
        )
        return True
