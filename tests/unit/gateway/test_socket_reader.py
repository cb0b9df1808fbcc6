"""The gateway's fast path for a client's text frames (``sockets/protocol.py``'s ``TextReader``): the
frames it takes itself, and the ones it leaves to websockets' parser. A real socket fed frames the way a
browser never would is in ``tests/integration/gateway/test_socket_reader_on_a_socket.py``."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from websockets.frames import Opcode
from websockets.http11 import Request
from websockets.server import ServerProtocol

from services.gateway.sockets.protocol import OTHER, TEXT, WHOLE, TextReader, next_frame
from tests.support.frames import client_frame

# --- the frame parser --------------------------------------------------------------------------------


def test_a_final_masked_text_frame_is_taken() -> None:
    frame = client_frame(b'{"type":"ping"}')
    assert next_frame(frame, 0) == (TEXT, 2, len(frame))
    assert next_frame(b"xx" + frame, 2) == (TEXT, 4, len(frame) + 2)


def test_a_frame_with_a_16_bit_length_is_taken() -> None:
    frame = client_frame(b"a" * 300)
    assert next_frame(frame, 0) == (TEXT, 4, len(frame))


@pytest.mark.parametrize("cut", [0, 1, 2, 3, 5, 7])
def test_an_incomplete_frame_waits_for_more(cut: int) -> None:
    frame = client_frame(b'{"type":"ping"}')
    assert next_frame(frame[:cut], 0) is None
    long = client_frame(b"a" * 300)
    assert next_frame(long[:3], 0) is None and next_frame(long[:-1], 0) is None


@pytest.mark.parametrize("opcode", [0x2, 0x8, 0x9, 0xA])
def test_whole_binary_and_control_frames_go_to_websockets(opcode: int) -> None:
    frame = client_frame(b"\x03\xe8" if opcode == 0x8 else b"x", opcode=opcode)
    assert next_frame(frame, 0) == (WHOLE, 2, len(frame))


@pytest.mark.parametrize(
    "frame",
    [
        client_frame(b"part", fin=False),  # a fragment
        client_frame(b"rest", opcode=0x0),  # a continuation
        client_frame(b"x", rsv=0x40),  # a reserved bit (no extension was agreed)
        client_frame(b"x", opcode=0x3),  # a reserved opcode
        client_frame(b"x", masked=False),  # clients must mask
        client_frame(b"a" * 70_000),  # a 64-bit length
    ],
    ids=["fragment", "continuation", "rsv", "opcode", "unmasked", "64-bit"],
)
def test_any_other_frame_ends_the_fast_path(frame: bytes) -> None:
    kind = next_frame(frame, 0)
    assert kind is not None and kind[0] == OTHER


# --- the splice with websockets' parser, as a property ---------------------------------------------------


class _Spliced:
    """A ``TextReader``'s protocol side over a real websockets ``ServerProtocol`` (after its handshake):
    what the reader takes itself and what it hands to websockets land in one list, in arrival order."""

    def __init__(self) -> None:
        self.conn = ServerProtocol()
        key = base64.b64encode(b"0123456789abcdef").decode()
        self.conn.receive_data(
            b"GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode()
        )
        (request,) = self.conn.events_received()
        assert isinstance(request, Request)
        self.conn.send_response(self.conn.accept(request))
        self.close_sent = False
        self.queue = _AlwaysEmpty()
        self.received: list[str | bytes] = []
        self.parts: list[bytes] = []
        self.text = True

    def take(self, text: str) -> bool:
        self.received.append(text)
        return True

    def queue_text(self, text: str) -> None:
        self.received.append(text)

    def slow_data_received(self, data: bytes) -> None:
        self.conn.receive_data(data)
        for frame in self.conn.events_received():
            if frame.opcode in (Opcode.TEXT, Opcode.BINARY):
                self.text, self.parts = frame.opcode is Opcode.TEXT, []
            if frame.opcode in (Opcode.TEXT, Opcode.BINARY, Opcode.CONT):
                self.parts.append(bytes(frame.data))
                if frame.fin:
                    whole = b"".join(self.parts)
                    self.received.append(whole.decode() if self.text else whole)


class _AlwaysEmpty:
    def empty(self) -> bool:
        return True


_messages_sent = st.lists(
    st.one_of(
        st.tuples(st.just("text"), st.text(max_size=300)),
        st.tuples(st.just("binary"), st.binary(max_size=40)),
        st.tuples(st.just("ping"), st.binary(max_size=10)),
        st.tuples(st.just("parts"), st.text(min_size=2, max_size=40)),
    ),
    max_size=12,
)


@given(messages=_messages_sent, cuts=st.lists(st.integers(min_value=1, max_value=64), max_size=40))
@settings(max_examples=300, deadline=None)
def test_any_mix_of_frames_cut_anywhere_arrives_whole_and_in_order(
    messages: list[tuple[str, Any]], cuts: list[int]
) -> None:
    wire, expected = b"", []
    for kind, body in messages:
        if kind == "text":
            wire += client_frame(body.encode())
            expected.append(body)
        elif kind == "binary":
            wire += client_frame(body, opcode=0x2)
            expected.append(body)
        elif kind == "ping":
            wire += client_frame(body, opcode=0x9)
        else:
            half = len(body) // 2
            wire += client_frame(body[:half].encode(), fin=False) + client_frame(
                body[half:].encode(), opcode=0
            )
            expected.append(body)
    side = _Spliced()
    reader: TextReader | None = TextReader(side, side.take)
    pos = 0
    for size in [*cuts, len(wire)]:
        chunk, pos = wire[pos : pos + size], pos + size
        if not chunk:
            break
        if reader is None:
            side.slow_data_received(chunk)
        elif not reader.data_received(chunk):
            reader = None  # the fast path ended: websockets has all that followed
    assert side.received == expected
