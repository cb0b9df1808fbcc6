"""Writing a frame to many WebSockets at the cost of one ``write`` each: where a feed's frames go straight out.

Through ASGI, every frame to every socket wakes the socket's sender task and passes through Starlette,
uvicorn and websockets, each framing it anew: with a thousand spectators that was most of the time from
an append to the last of them. A ``DirectWriter`` writes a frame that was framed once for every viewer
of its kind (``wire/framing.py``) straight to the socket's transport, while the socket is writable and
nothing else is queued for it; otherwise the frame takes the ordinary path (``sockets/ws.py``), which waits
for the socket to drain. The writes of one event loop's turn are made together (``Flusher``).

It needs uvicorn's sans-I/O WebSocket protocol (the socket's ``sockets/protocol.SocketProtocol`` makes
one known to the application and makes its writer, ``direct_writer``). It lives here, with the feeds that
write through it, so that a frame's way out goes down the layers: the feeds import nothing of the sockets.
"""

from __future__ import annotations

import asyncio
import weakref

import structlog
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

log = structlog.get_logger("writes")


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
        if protocol.close_sent or protocol.disconnected or not protocol.writable.is_set():
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
