"""A WebSocket's place in a game's feed (``Viewer``), and how its frames are written: straight to the socket's
transport at the cost of one ``write`` a turn (``DirectWriter``), or queued while it is behind.

Through ASGI, every frame to every socket wakes the socket's sender task and passes through Starlette,
uvicorn and websockets, each framing it anew: with a thousand spectators that was most of the time from
an append to the last of them. A ``DirectWriter`` writes a frame that was framed once for every viewer
of its kind (``wire/framing.py``) straight to the socket's transport, while the socket is writable and
nothing else is queued for it; otherwise the frame takes the ordinary path (``sockets/ws.py``), which waits
for the socket to drain. The writes of one event loop's turn are made together (``Flusher``).

It needs uvicorn's sans-I/O WebSocket protocol (the socket's ``sockets/protocol.SocketProtocol`` makes
one known to the application, makes its writer with ``direct_writer`` and keeps its ``writable`` flag, a
``Flag`` of this module). The feed's side of a socket lives here, with the feeds, so that a frame's way out
goes down the layers: the feeds import nothing of the sockets, and ask the socket's owner (``sockets/ws.py``)
through callbacks.
"""

from __future__ import annotations

import asyncio
import weakref
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import structlog
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

from services.gateway.wire.framing import text_frame

if TYPE_CHECKING:
    from events.envelope import CommandRecord

log = structlog.get_logger("writes")

QUEUE_LIMIT = 256
"""Frames a viewer may have waiting before it is sent a fresh view instead."""
NOTES_LIMIT = 256
"""Answers (pongs, command results) a viewer may have waiting unsent; one more and its socket is dropped:
an answer cannot be replaced by a fresh view, and a client that asks without reading must not grow the
gateway."""


class Viewer:
    """One WebSocket's place in a feed: frames written straight to its socket while it keeps up
    (``DirectWriter``), else a bounded queue of ``(seq, text)`` frames that a sender drains.

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


WRITE_BUFFER_LIMIT = 64 * 1024
"""Bytes a socket's transport may hold unsent before its frames wait in its queue instead (a slow reader
is then sent a fresh view rather than growing the gateway's memory)."""


class DirectWriter:
    """Writes ready-framed frames to one socket's transport while it keeps up.

    The frames written in one turn of the event loop go out in one ``write`` at its end (a mover's event
    frame and its result, a burst of events): one system call per socket and turn, not per frame.
    """

    __slots__ = ("_batch", "_flusher", "protocol", "transport")

    def __init__(self, protocol: WebSocketsSansIOProtocol, flusher: Flusher) -> None:
        self.protocol = protocol
        self.transport: asyncio.Transport = protocol.transport
        self._flusher = flusher
        self._batch: list[bytes] = []

    def write(self, frame: bytes) -> bool:
        """Send the frame this turn; False if the socket is closing or behind (then nothing was taken)."""
        protocol = self.protocol
        writable: Any = protocol.writable  # a ``Flag`` (``SocketProtocol``'s), uvicorn's ``asyncio.Event``
        if protocol.close_sent or protocol.disconnected or not writable.is_set():
            return False
        if self.transport.is_closing() or self.transport.get_write_buffer_size() > WRITE_BUFFER_LIMIT:
            return False
        if not self._batch:
            self._flusher.due(self)
        self._batch.append(frame)
        return True

    @property
    def holding(self) -> bool:
        """Frames taken this turn are not written yet: anything sent otherwise must wait for them."""
        return bool(self._batch)

    def flush(self) -> None:
        batch = self._batch  # kept and cleared, not replaced: a new list per socket and event outlived
        data = batch[0] if len(batch) == 1 else b"".join(batch)  # young collections (see ``Flusher``)
        batch.clear()
        if not self.transport.is_closing():
            self.transport.write(data)


class Flusher:
    """The direct writes of one event loop, made by one callback at the end of the turn that took them, or
    at once by ``flush_direct_writes`` (the hub, once it has published a read's events and settled its
    results: each socket's event and result frames go out in one write, and a turn sooner).

    One callback per socket and turn was, at 5,000 spectators, 5,000 handles per event: each young
    collection they set off moved the handles still waiting into older generations, and full collections
    of the gateway's ~400k objects (0.2–0.5 s each) followed every two seconds: the slow events of fan-out.
    """

    __slots__ = ("writers",)

    def __init__(self) -> None:
        self.writers: list[DirectWriter] = []

    def due(self, writer: DirectWriter) -> None:
        if not self.writers:
            asyncio.get_running_loop().call_soon(self.flush)  # the loop is not kept: it keys ``_flushers``
        self.writers.append(writer)

    def flush(self) -> None:
        writers = self.writers
        try:
            for writer in writers:
                try:
                    writer.flush()  # empties the writer's batch before writing: it never stays held
                except Exception as exc:  # one broken socket must not hold back the others' frames
                    log.warning("direct_write_failed", error=str(exc))
        finally:
            writers.clear()


_flushers: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Flusher] = weakref.WeakKeyDictionary()


def loop_flusher() -> Flusher:
    """The running loop's ``Flusher``, made on first use."""
    loop = asyncio.get_running_loop()
    flusher = _flushers.get(loop)
    if flusher is None:
        flusher = _flushers[loop] = Flusher()
    return flusher


def flush_direct_writes() -> None:
    """Write the direct writes taken so far in this turn now, not at its end."""
    flusher = _flushers.get(asyncio.get_running_loop())
    if flusher is not None and flusher.writers:
        flusher.flush()


class Flag:
    """A socket's ``writable`` flag (uvicorn's attribute, cleared while the transport's buffer is over its
    high-water mark): ``asyncio.Event``'s ``set``/``clear``/``is_set``/``wait``, holding a future only while
    waited on (an ``asyncio.Event`` holds a deque, ~760 bytes, for each of thousands of sockets). The
    protocol sets it; the ``DirectWriter`` reads it, so it lives here, below the sockets."""

    __slots__ = ("_set", "_waiters")

    def __init__(self) -> None:
        self._set = False
        self._waiters: list[asyncio.Future[None]] | None = None

    def is_set(self) -> bool:
        return self._set

    def set(self) -> None:
        self._set = True
        waiters, self._waiters = self._waiters, None
        for waiter in waiters or ():
            if not waiter.done():
                waiter.set_result(None)

    def clear(self) -> None:
        self._set = False

    async def wait(self) -> bool:
        if self._set:
            return True
        waiter = asyncio.get_running_loop().create_future()
        # through a local: narrowed past the ``await``, ``self._waiters`` would be taken for a list when
        # compiled, and ``set`` emptying it meanwhile would raise 'list object expected; got None'
        waiters = self._waiters
        if waiters is None:
            waiters = self._waiters = []
        waiters.append(waiter)
        try:
            await waiter
        finally:
            if self._waiters is not None and waiter in self._waiters:
                self._waiters.remove(waiter)
        return True
