"""The game socket's protocol below ASGI: ``SocketProtocol``, uvicorn's sans-I/O WebSocket protocol made known
to the application (``scope["extensions"]``), bounded per client and light per socket (its ``Inbox``, and
its ``writable`` flag: ``feeds/viewer.py``'s ``Flag``, which the direct writer reads), and the socket's
direct writer (``feeds/viewer.py``'s ``DirectWriter``, made by ``direct_writer``).

Under any other server, or with compression negotiated (the frames would need compressing per socket),
there is no ``SocketProtocol``: every frame takes the ordinary path (``ws.py``).

**Reading a client's text frames** without the layers of ASGI (``TextReader``). Through ASGI a move's frame
was parsed by websockets' generator-driven parser, queued as a message dict, read by the socket's task a
turn of the loop later (uvicorn pausing and resuming the socket's reading around each message), and
checked again by Starlette: about a tenth of the gateway's time per move. A
``TextReader`` takes the common frame itself, a final, masked text frame of at most 64 KiB (RFC 6455 5.2),
and hands its text to the application's handler in the same turn it arrives.

Every other frame goes the ordinary way, which keeps websockets' parser the one authority on the
protocol: a whole ping, pong, close or binary frame is handed to it as it is (it is then at a frame
boundary again); a fragment, a frame with reserved bits or a 64-bit length, an unmasked frame or text that
is not UTF-8 ends the fast path for good, and it gets that frame and all that follows. Text the handler
does not take (a frame too large or unknown, which ends the socket) is queued for the socket's task, as
is any text while earlier messages wait there, so that the order is kept.

Every frame, whatever its kind, is first charged to the socket's ``FrameBudget``: a client over it is
closed (1008) before its frame is parsed. A text frame longer than ``MAX_WS_MESSAGE`` goes to websockets'
parser, which refuses it from its header (1009) rather than waiting for the rest of it.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable
from typing import Any

from starlette.websockets import WebSocket
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.protocol import State

from services.gateway.access.limits import FrameBudget
from services.gateway.feeds.viewer import WRITE_BUFFER_LIMIT, DirectWriter, Flag, loop_flusher
from services.gateway.wire.close_codes import CLOSE_FLOODED, MAX_WS_MESSAGE, close_reason

try:
    from websockets.speedups import apply_mask
except ImportError:  # pragma: no cover - websockets ships the C speedups in its wheels
    from websockets.utils import apply_mask

TEXT, WHOLE, OTHER = 0, 1, 2
"""A frame's kind: a plain text frame, a whole frame for websockets' parser, or the end of the fast path."""
_WHOLE_OPCODES = frozenset({0x2, 0x8, 0x9, 0xA})  # binary, close, ping, pong

TextHandler = Callable[[str], bool]
"""Takes a text message; False leaves it to the socket's task."""


def next_frame(data: bytes, pos: int) -> tuple[int, int, int] | None:
    """The frame at ``pos``: its kind, where its masking key starts and where it ends; None if incomplete."""
    if len(data) - pos < 2:
        return None
    first, second = data[pos], data[pos + 1]
    length, head = second & 0x7F, pos + 2
    if length == 127 or not second & 0x80 or first & 0x70 or not first & 0x80:
        return OTHER, head, head  # 64-bit length, unmasked, reserved bits or a fragment
    if length == 126:
        if len(data) - pos < 4:
            return None
        length, head = int.from_bytes(data[pos + 2 : pos + 4], "big"), pos + 4
    if length > MAX_WS_MESSAGE:
        return OTHER, head, head  # refused by websockets' parser from this header, never buffered here
    end = head + 4 + length
    if end > len(data):
        return None
    opcode = first & 0x0F
    if opcode == 0x1:
        return TEXT, head, end
    return (WHOLE if opcode in _WHOLE_OPCODES else OTHER), head, end


class FrameCounter:
    """Counts the frames in the bytes websockets' parser is about to get, from their headers alone: a
    socket's budget is charged before the parser turns a read of 256 KiB of tiny frames into thousands of
    objects (~0.1 s of the event loop for one flooding socket). It sees exactly the bytes the parser sees,
    from the first frame on, so it stays at the parser's frame boundaries."""

    __slots__ = ("head", "skip")

    def __init__(self) -> None:
        self.head = b""
        """The start of a frame header split between two reads."""
        self.skip = 0
        """Bytes of the current frame's payload still to come."""

    def count(self, data: bytes) -> int:
        """The frames whose headers ``data`` completes."""
        pos = min(self.skip, len(data))
        self.skip -= pos
        buffer = self.head + data[pos:] if self.head else data[pos:] if pos else data
        pos, size, frames = 0, len(buffer), 0
        while size - pos >= 2:
            second = buffer[pos + 1]
            length, head = second & 0x7F, pos + 2 + (4 if second & 0x80 else 0)
            if length >= 126:
                extra = 2 if length == 126 else 8
                if size - pos < 2 + extra:
                    break
                length = int.from_bytes(buffer[pos + 2 : pos + 2 + extra], "big")
                head += extra
            if head > size:
                break
            frames += 1
            if head + length > size:
                self.skip = head + length - size
                pos = size
                break
            pos = head + length
        self.head = buffer[pos:]
        return frames


def at_frame_boundary(conn: Any) -> bool:
    """websockets' parser holds no part of a frame or message (it waits for the next frame's first byte)."""
    if conn.state is not State.OPEN or conn.expect_continuation_frame or conn.reader.buffer:
        return False
    generator, innermost = conn.parser, ""
    while generator is not None:
        innermost = getattr(generator, "__qualname__", "")
        generator = getattr(generator, "gi_yieldfrom", None)
    return innermost == "StreamReader.at_eof"


class TextReader:
    """The fast path of one socket's incoming frames (see the module's docstring)."""

    __slots__ = ("budget", "handler", "protocol", "unparsed")

    def __init__(self, protocol: Any, handler: TextHandler, budget: FrameBudget | None = None) -> None:
        self.protocol = protocol
        """The socket's ``SocketProtocol``: its ``slow_data_received`` is websockets' way, its ``flooded``
        ends a socket over its budget."""
        self.handler = handler
        self.budget = budget
        self.unparsed = b""
        """The start of a frame not yet complete."""

    def data_received(self, data: bytes) -> bool:
        """Take the data; False once the fast path has ended (the protocol then forgets this reader)."""
        protocol = self.protocol
        buffer = self.unparsed + data if self.unparsed else data
        pos, size = 0, len(buffer)
        while pos < size:
            frame = next_frame(buffer, pos)
            if frame is None:
                break
            kind, head, end = frame
            if kind == TEXT:
                if self.budget is not None and not self.budget.take():  # other frames: in the protocol
                    self.unparsed = b""
                    protocol.flooded()
                    return False
                try:
                    text = apply_mask(buffer[head + 4 : end], buffer[head : head + 4]).decode()
                except UnicodeDecodeError:
                    kind = OTHER
                else:
                    # past the application's close it is discarded, as uvicorn does; else the handler takes
                    # it, unless it leaves it, or earlier messages wait in the socket's queue (order is kept)
                    if not protocol.close_sent and not (protocol.queue.empty() and self.handler(text)):
                        protocol.queue_text(text)
                    pos = end
                    continue
            if kind == WHOLE:
                protocol.slow_data_received(buffer[pos:end])
                pos = end
                if at_frame_boundary(protocol.conn):
                    continue
            self.unparsed = b""
            if pos < size:
                protocol.slow_data_received(buffer[pos:])
            return False
        self.unparsed = buffer[pos:]
        return True


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
        """Set while the application reads text frames itself (``TextReader``)."""
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
