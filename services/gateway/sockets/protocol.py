"""The game socket's protocol below ASGI: ``SocketProtocol``, uvicorn's sans-I/O WebSocket protocol made known
to the application (``scope["extensions"]``), bounded per client and light per socket (its ``Flag`` and
``Inbox``), and the socket's direct writer (``feeds/writes.py``'s ``DirectWriter``, made by
``direct_writer``).

Under any other server, or with compression negotiated (the frames would need compressing per socket),
there is no ``SocketProtocol``: every frame takes the ordinary path (``ws.py``).
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Any

from starlette.websockets import WebSocket
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.protocol import State

from services.gateway.access.limits import FrameBudget
from services.gateway.feeds.writes import WRITE_BUFFER_LIMIT, DirectWriter, loop_flusher
from services.gateway.sockets.socket_reader import FrameCounter, TextHandler, TextReader, at_frame_boundary
from services.gateway.wire.close_codes import CLOSE_FLOODED, MAX_WS_MESSAGE, close_reason

EXTENSION = "harbormaster.socket"
UNREAD = "the client does not read what it is sent"
"""Why a socket whose answers pile up unread is closed (``CLOSE_FLOODED``)."""


class SocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's sans-I/O WebSocket protocol, reachable from the application through its scope, and lighter
    for the many sockets a gateway holds open: its inbox and its ``writable`` flag allocate only while some
    task waits on them (``asyncio.Queue`` alone is four deques, ~3 kB), and the handshake's request and
    response (headers, ~2 kB) are let go once the handshake is sent.

    It also bounds what one client may cost: a frame longer than ``MAX_WS_MESSAGE`` is refused from its
    header (whatever the server's ``ws_max_size``), every frame is charged to the socket's ``budget``
    before it is parsed (by the text reader, or counted by its header on its way to websockets), and
    a ping is answered only while the socket's write buffer is within ``WRITE_BUFFER_LIMIT``; a client over
    either is closed with 1008 (``flooded``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        limit = self.conn.max_message_size
        if limit is None or limit > MAX_WS_MESSAGE:
            self.conn.max_message_size = MAX_WS_MESSAGE
        self.queue: Any = Inbox()
        self.writable: Any = Flag()
        self.writable.set()
        self.text_reader: TextReader | None = None
        """Set while the application reads text frames itself (``socket_reader.py``)."""
        self.budget: FrameBudget | None = None
        """The client's allowance of frames, set by the application as it takes the socket (``ws.py``)."""
        self.counter = FrameCounter()
        """Counts the frames websockets' parser gets, to charge them before it parses them."""

    def data_received(self, data: bytes) -> None:
        reader = self.text_reader
        if reader is None or not self.handshake_complete:
            self.slow_data_received(data)
        elif not reader.data_received(data):
            self.text_reader = None

    def slow_data_received(self, data: bytes) -> None:
        """Data for websockets' parser (a whole frame, or everything once the fast path has ended), its
        frames charged to the budget first (the handshake's request came alone, in the first call)."""
        if self.handshake_initiated:
            frames = self.counter.count(data)
            if self.budget is not None and frames and not self.budget.take(frames):
                self.flooded()
                return
        super().data_received(data)

    def queue_text(self, text: str) -> None:
        """A text message for the socket's task, queued as uvicorn queues one (reading paused meanwhile)."""
        self.queue.put_nowait({"type": "websocket.receive", "text": text})
        if not self.read_paused:
            self.read_paused = True
            self.transport.pause_reading()

    def read_text_with(self, handler: TextHandler) -> None:
        """Hand text frames to ``handler`` as they arrive, from now on, unless this socket cannot (its
        frames are compressed, or websockets' parser is inside a frame or message)."""
        if self.conn.extensions or getattr(self, "frames", None) or not at_frame_boundary(self.conn):
            return
        self.text_reader = TextReader(self, handler, self.budget)

    def stop_reading_text(self) -> None:
        """Back to websockets' parser, with the start of a frame the reader holds."""
        reader, self.text_reader = self.text_reader, None
        if reader is not None and reader.unparsed:
            self.slow_data_received(reader.unparsed)

    def flooded(self, reason: str = "") -> None:
        """End a client over its budget: a close frame (1008), nothing more read from it, and the connection
        dropped at once if even that cannot be sent (a client that does not read)."""
        self.text_reader = None
        if self.close_sent or self.transport.is_closing():
            return
        reason = close_reason(reason or flood_reason(self.budget.rate if self.budget is not None else 0.0))
        if self.conn.state is State.OPEN:
            self.conn.send_close(CLOSE_FLOODED, reason)
            self.transport.write(b"".join(self.conn.data_to_send()))
        self.close_sent = True
        self.queue.put_nowait({"type": "websocket.disconnect", "code": CLOSE_FLOODED, "reason": reason})
        if self.transport.get_write_buffer_size():
            self.transport.abort()
        else:
            self.transport.close()

    def handle_ping(self) -> None:
        """websockets has queued the pong: sent while the client reads, else the client is dropped."""
        if self.transport.get_write_buffer_size() > WRITE_BUFFER_LIMIT:
            self.flooded(UNREAD)
            return
        super().handle_ping()

    def handle_connect(self, event: Any) -> None:
        super().handle_connect(event)
        scope: Any = getattr(self, "scope", None)
        if scope is not None:
            scope["extensions"][EXTENSION] = self

    async def send(self, message: Any) -> None:
        await super().send(message)
        if self.handshake_complete and getattr(self, "response", None) is not None:
            self.request = None  # type: ignore[assignment]
            self.response = None  # type: ignore[assignment]


def flood_reason(rate: float) -> str:
    """Why a socket over its budget of ``rate`` frames a second is closed (``CLOSE_FLOODED``)."""
    return f"too many frames: at most {rate:g} a second"


class Flag:
    """``asyncio.Event``'s ``set``/``clear``/``is_set``/``wait``, holding a future only while waited on."""

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


class Inbox:
    """``asyncio.Queue``'s ``put_nowait``/``get``/``empty`` for the one task that reads a socket's messages.

    Unbounded like uvicorn's queue (uvicorn pauses reading the socket while messages wait)."""

    __slots__ = ("_getter", "_items")

    def __init__(self) -> None:
        self._items: deque[Any] | None = None
        self._getter: asyncio.Future[None] | None = None

    def empty(self) -> bool:
        return not self._items

    def put_nowait(self, item: Any) -> None:
        if self._items is None:
            self._items = deque()
        self._items.append(item)
        getter, self._getter = self._getter, None
        if getter is not None and not getter.done():
            getter.set_result(None)

    async def get(self) -> Any:
        while not self._items:
            if self._getter is None or self._getter.done():
                self._getter = asyncio.get_running_loop().create_future()
            await self._getter
        item = self._items.popleft()
        if not self._items:
            self._items = None
        return item


def socket_protocol(websocket: WebSocket) -> SocketProtocol | None:
    """The socket's ``SocketProtocol``, where the server runs it (``harbormaster gateway`` does)."""
    protocol = websocket.scope.get("extensions", {}).get(EXTENSION)
    return protocol if isinstance(protocol, SocketProtocol) else None


def direct_writer(websocket: WebSocket) -> DirectWriter | None:
    """The socket's direct writer, or None where frames must take the ordinary path."""
    protocol = socket_protocol(websocket)
    if protocol is None or protocol.conn.extensions:
        return None
    return DirectWriter(protocol, loop_flusher())
