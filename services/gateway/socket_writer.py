"""Writing a frame to many WebSockets at the cost of one ``write`` each.

Through ASGI, every frame to every socket wakes the socket's sender task and passes through Starlette,
uvicorn and websockets, each framing it anew: with a thousand spectators that was most of the time from
an append to the last of them. A ``DirectWriter`` writes a frame that was framed once for every viewer
of its kind straight to the socket's transport, while the socket is writable and nothing else is queued
for it; otherwise the frame takes the ordinary path (``ws.py``), which waits for the socket to drain.

It needs uvicorn's sans-I/O WebSocket protocol, which ``SocketProtocol`` extends only to make itself known
to the application (``scope["extensions"]``). Under any other server, or with compression negotiated
(the frames would need compressing per socket), every frame takes the ordinary path.
"""

from __future__ import annotations

import asyncio
import struct
from typing import Any

from starlette.websockets import WebSocket
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

EXTENSION = "harbormaster.socket"
WRITE_BUFFER_LIMIT = 64 * 1024
"""Bytes a socket's transport may hold unsent before its frames wait in its queue instead (a slow reader
is then sent a fresh view rather than growing the gateway's memory)."""


class SocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's sans-I/O WebSocket protocol, reachable from the application through its scope."""

    def handle_connect(self, event: Any) -> None:
        super().handle_connect(event)
        scope: Any = getattr(self, "scope", None)
        if scope is not None:
            scope["extensions"][EXTENSION] = self


def text_frame(payload: bytes) -> bytes:
    """A final, unmasked text frame (RFC 6455 5.2): what a server sends, framed once for many sockets."""
    size = len(payload)
    if size < 126:
        return struct.pack("!BB", 0x81, size) + payload
    if size < 1 << 16:
        return struct.pack("!BBH", 0x81, 126, size) + payload
    return struct.pack("!BBQ", 0x81, 127, size) + payload


class DirectWriter:
    """Writes ready-framed frames to one socket's transport while it keeps up.

    The frames written in one turn of the event loop go out in one ``write`` at its end (a mover's event
    frame and its result, a burst of events): one system call per socket and turn, not per frame.
    """

    def __init__(self, protocol: WebSocketsSansIOProtocol) -> None:
        self.protocol = protocol
        self.transport: asyncio.Transport = protocol.transport
        self._batch: list[bytes] = []

    def write(self, frame: bytes) -> bool:
        """Send the frame this turn; False if the socket is closing or behind (then nothing was taken)."""
        protocol = self.protocol
        if protocol.close_sent or protocol.disconnected or not protocol.writable.is_set():
            return False
        if self.transport.is_closing() or self.transport.get_write_buffer_size() > WRITE_BUFFER_LIMIT:
            return False
        if not self._batch:
            asyncio.get_running_loop().call_soon(self._flush)
        self._batch.append(frame)
        return True

    @property
    def holding(self) -> bool:
        """Frames taken this turn are not written yet: anything sent otherwise must wait for them."""
        return bool(self._batch)

    def _flush(self) -> None:
        batch, self._batch = self._batch, []
        if not self.transport.is_closing():
            self.transport.write(b"".join(batch) if len(batch) > 1 else batch[0])


def direct_writer(websocket: WebSocket) -> DirectWriter | None:
    """The socket's direct writer, or None where frames must take the ordinary path."""
    protocol = websocket.scope.get("extensions", {}).get(EXTENSION)
    if not isinstance(protocol, WebSocketsSansIOProtocol) or protocol.conn.extensions:
        return None
    return DirectWriter(protocol)
