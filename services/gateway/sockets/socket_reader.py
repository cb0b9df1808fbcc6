"""Reading a client's text frames without the layers of ASGI, for the sockets a game is played over.

Through ASGI a move's frame was parsed by websockets' generator-driven parser, queued as a message dict,
read by the socket's task a turn of the loop later (uvicorn pausing and resuming the socket's reading
around each message), and checked again by Starlette: about a tenth of the gateway's time per move. A
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

from collections.abc import Callable
from typing import Any

from websockets.protocol import State

from services.gateway.access.limits import FrameBudget
from services.gateway.wire.close_codes import MAX_WS_MESSAGE

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
