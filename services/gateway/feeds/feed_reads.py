"""The feeds' one ``XREAD BLOCK`` over every watched game's two streams, built once per set of feeds; and
the entries of its reply.

Made afresh for each read, the command cost the gateway O(feeds) every time: the streams' keys listed,
each feed's cursors formatted, and hundreds of arguments packed (~180 µs a read at 200 watched games, a
read every few events). A ``FeedReads`` packs the command's head, the stream keys included, once for as
long as the set of feeds stays the same, and each feed keeps its two cursors packed until they move.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from events import keys
from events.transport.resp import bulk

if TYPE_CHECKING:
    from services.gateway.feeds.fanout import GameFeed


class ReadsFor(Protocol):
    """What a reader (``blocking_read.BlockingReader``, ``polling.PolledReader``) reads for: the hub
    (``hub.FeedHub``), named here so that the readers the hub holds do not import it back."""

    watched: int
    """Bumped whenever a feed is added: a read built before it must be built again."""

    async def live_feeds(self) -> list[GameFeed]:
        """The feeds to read (neither closed nor resting), once there is one."""

    def read_failed(self, feeds: int, error: Exception) -> None:
        """A read of ``feeds`` feeds failed: the feeds are checked against the store."""

    def apply_streams(self, by_key: dict[bytes, tuple[GameFeed, bool]], streams: list[Any]) -> None:
        """Fold what a read brought, ``(stream, entries)`` pairs, into the feeds ``by_key`` names."""


READ_COUNT = 1000
"""The most entries one read takes from one stream, by either reader (a game far behind catches up over
several reads)."""


def by_key(feeds: list[GameFeed]) -> dict[bytes, tuple[GameFeed, bool]]:
    """Each stream read for these feeds: its feed, and whether it is the event stream (else the log)."""
    streams: dict[bytes, tuple[GameFeed, bool]] = {}
    for feed in feeds:
        streams[keys.events(feed.game_id).encode()] = (feed, True)
        streams[keys.commands(feed.game_id).encode()] = (feed, False)
    return streams


class FeedReads:
    """The read of one set of feeds: ``command()`` is the ``XREAD`` from where each feed is now."""

    __slots__ = ("by_key", "feeds", "head", "watched")

    def __init__(self, feeds: list[GameFeed], watched: int, count: int, block_ms: int) -> None:
        self.feeds = feeds
        self.watched = watched
        """The hub's count of feeds ever added when this was built (a newer feed makes it stale)."""
        self.by_key = by_key(feeds)
        args = [b"XREAD", b"COUNT", b"%d" % count, b"BLOCK", b"%d" % block_ms, b"STREAMS", *self.by_key]
        self.head = b"*%d\r\n" % (len(args) + 2 * len(feeds)) + b"".join(map(bulk, args))

    def current(self, watched: int) -> bool:
        """Still the read of every live feed: none added or woken since, none closed or resting."""
        return watched == self.watched and not any(feed.closed or feed.resting for feed in self.feeds)

    def command(self) -> bytes:
        """The ``XREAD`` in RESP, its cursors (in ``by_key``'s order) where the feeds are now."""
        return self.head + b"".join([feed.packed_cursors() for feed in self.feeds])


def stream_pairs(reply: Any) -> list[Any]:
    """``XREAD``'s ``(stream, entries)`` pairs: a map under RESP3 (Redis 7 with ``protocol=3``), a list of
    pairs under RESP2, nothing when nothing is new."""
    return list(reply.items()) if isinstance(reply, dict) else list(reply or [])


def event_fields(flat: list[bytes]) -> tuple[bytes, bytes | None]:
    """An event entry's envelope, and the result record riding on it if any. The append script writes them
    first, in that order (``e``, then ``r``): read in place, without a dict per entry."""
    if flat[0] == b"e" and (len(flat) == 2 or flat[2] == b"r"):
        return flat[1], flat[3] if len(flat) > 3 else None
    fields = entry_fields(flat)
    return fields[b"e"], fields.get(b"r")


def entry_fields(flat: list[bytes]) -> dict[bytes, bytes]:
    """A stream entry's ``[field, value, …]`` as a dict."""
    return dict(zip(flat[::2], flat[1::2], strict=True))


def growing_slices(length: int, first: int) -> list[tuple[int, int]]:
    """``[0, length)`` cut into slices of ``first``, ``2 * first``, ``4 * first`` … items, in order."""
    slices, start, size = [], 0, max(1, first)
    while start < length:
        slices.append((start, min(length, start + size)))
        start, size = start + size, size * 2
    return slices
