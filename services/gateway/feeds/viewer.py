"""A WebSocket's place in a game's feed: the frames it is sent directly, or queued while it is behind.

The feed's side of a socket: it writes through the socket's direct writer (``writes.py``) and asks its
socket's owner (``sockets/ws.py``) through callbacks, so the feeds import nothing of the sockets."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING

from services.gateway.feeds.writes import DirectWriter
from services.gateway.wire.framing import text_frame

if TYPE_CHECKING:
    from events.envelope import CommandRecord

QUEUE_LIMIT = 256
"""Frames a viewer may have waiting before it is sent a fresh view instead."""
NOTES_LIMIT = 256
"""Answers (pongs, command results) a viewer may have waiting unsent; one more and its socket is dropped:
an answer cannot be replaced by a fresh view, and a client that asks without reading must not grow the
gateway."""


class Viewer:
    """One WebSocket's place in a feed: frames written straight to its socket while it keeps up
    (``writes.py``), else a bounded queue of ``(seq, text)`` frames that a sender drains.

    Thousands of these live at once, so it holds no more than it needs: ``__slots__``, and its queues are
    made only when a frame has to wait (an empty deque alone is ~760 bytes)."""

    __slots__ = (
        "closed",
        "direct_frames",
        "items",
        "last_seq",
        "limit",
        "notes",
        "overflow",
        "pending",
        "queued_seq",
        "resync",
        "seat",
        "sending",
        "wake",
        "writer",
    )  # fmt: skip

    def __init__(self, seat: int | None, last_seq: int) -> None:
        self.seat = seat
        self.last_seq = last_seq
        self.queued_seq = last_seq
        self.limit = QUEUE_LIMIT
        self.items: deque[tuple[int, str]] | None = None
        self.resync = False
        self.closed = False
        self.pending: dict[str, Callable[[CommandRecord], None]] | None = None
        """Commands this socket sent whose results are not recorded yet: their listeners (``GameFeed.listen``)
        by ``keys.result_field``."""
        self.notes: deque[str] | None = None
        """Frames that answer the client (pongs, command results), sent after the queued event frames."""
        self.wake: Callable[[], None] = _nothing
        """Called when a frame waits in a queue: the socket's owner starts draining them (``ws.py``)."""
        self.overflow: Callable[[], None] = _nothing
        """Called when more than ``NOTES_LIMIT`` answers wait: the socket's owner drops it (``ws.py``)."""
        self.writer: DirectWriter | None = None
        """Set once the socket's opening frames are out, where the server allows direct writes."""
        self.sending = True
        """Frames are being written otherwise: a direct write now could overtake them."""
        self.direct_frames = 0

    def _write_now(self, frame: bytes) -> bool:
        writer = self.writer
        if writer is None or self.sending or self.resync or self.items or self.notes:
            return False
        return writer.write(frame)

    def note(self, text: str) -> None:
        """Send an answer to the client; it goes out after the event frames already queued."""
        if not self._write_now(text_frame(text.encode())):
            if self.notes is None:
                self.notes = deque()
            if len(self.notes) >= NOTES_LIMIT:
                self.notes.clear()
                self.overflow()
                return
            self.notes.append(text)
            self.wake()

    def rewind(self, seq: int) -> None:
        """The frames past ``seq`` were of events the store lost: what waits is dropped, and a fresh view
        (``resync``, at the feed's ``seq`` when it is sent) goes out before anything else."""
        if self.items is not None:
            self.items.clear()
        self.last_seq = self.queued_seq = seq
        self.resync = True
        self.wake()

    def push(self, seq: int, text: str, frame: bytes) -> bool:
        """Send or queue an event frame (``frame``: ``text`` framed, shared by the viewers of its kind);
        returns False (and asks for a fresh view) if the viewer is too far behind."""
        self.queued_seq = seq
        if self._write_now(frame):
            self.last_seq = seq
            self.direct_frames += 1
            return True
        if self.items is None:
            self.items = deque()
        if len(self.items) >= self.limit:
            self.items.clear()
            self.resync = True
            self.wake()
            return False
        self.items.append((seq, text))
        self.wake()
        return True


def _nothing() -> None:
    return None
