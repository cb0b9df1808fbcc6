"""The gateway's fast path for a client's text frames (``sockets/protocol.py``'s ``TextReader``): the frames it takes itself, the
ones it leaves to websockets' parser, and a real socket fed frames the way a browser never would."""

from __future__ import annotations

import base64
import json
import os
import re
import socket
import struct
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from websockets.frames import Frame, Opcode
from websockets.http11 import Request
from websockets.server import ServerProtocol

from services.gateway.sockets.protocol import OTHER, TEXT, WHOLE, TextReader, next_frame
from services.gateway.wire.close_codes import CLOSE_TOO_BIG, MAX_WS_MESSAGE
from tests.gateway.client import create
from tests.gateway.harness import ServerThread


def client_frame(
    payload: bytes, opcode: int = 0x1, fin: bool = True, rsv: int = 0, masked: bool = True
) -> bytes:
    """A frame as a client sends it (RFC 6455 5.2), masked unless told otherwise."""
    first = (0x80 if fin else 0) | rsv | opcode
    size = len(payload)
    if size < 126:
        head = struct.pack("!BB", first, (0x80 if masked else 0) | size)
    elif size < 1 << 16:
        head = struct.pack("!BBH", first, (0x80 if masked else 0) | 126, size)
    else:
        head = struct.pack("!BBQ", first, (0x80 if masked else 0) | 127, size)
    if not masked:
        return head + payload
    key = os.urandom(4)
    return head + key + bytes(byte ^ key[i % 4] for i, byte in enumerate(payload))


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


# --- a real socket -------------------------------------------------------------------------------------


class RawSocket:
    """A WebSocket client that writes bytes exactly as given (frames split, merged or malformed)."""

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        self.sock = socket.create_connection((parts.hostname or "127.0.0.1", parts.port or 80), timeout=15)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(
            f"GET {parts.path}?{parts.query} HTTP/1.1\r\nHost: {parts.netloc}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode()
        )
        self.buffer = b""
        while b"\r\n\r\n" not in self.buffer:
            self.buffer += self._recv()
        head, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
        assert head.startswith(b"HTTP/1.1 101"), head

    def _recv(self) -> bytes:
        data = self.sock.recv(65536)
        if not data:
            raise ConnectionError("the gateway closed the connection")
        return data

    def _take(self, size: int) -> bytes:
        while len(self.buffer) < size:
            self.buffer += self._recv()
        taken, self.buffer = self.buffer[:size], self.buffer[size:]
        return taken

    def frame(self) -> tuple[int, bytes]:
        """The next frame from the gateway: its opcode and payload."""
        first, second = self._take(2)
        size = second & 0x7F
        if size == 126:
            (size,) = struct.unpack("!H", self._take(2))
        elif size == 127:
            (size,) = struct.unpack("!Q", self._take(8))
        return first & 0x0F, self._take(size)

    def json(self) -> dict[str, Any]:
        """The next text frame, decoded (control frames are skipped)."""
        while True:
            opcode, payload = self.frame()
            if opcode == 0x1:
                return dict(json.loads(payload))
            assert opcode in (0x9, 0xA), f"unexpected frame {opcode}: {payload!r}"

    def until_result(self) -> dict[str, Any]:
        while (frame := self.json())["type"] != "result":
            pass
        return frame

    def close_code(self) -> int:
        """The code of the close frame the gateway sends (text frames before it are skipped)."""
        while True:
            opcode, payload = self.frame()
            if opcode == 0x8:
                return int(Frame(Opcode.CLOSE, payload).data[:2].hex(), 16) if payload else 1005

    def send(self, data: bytes) -> None:
        self.sock.sendall(data)

    def close(self) -> None:
        self.sock.close()


def _command(command_id: str) -> bytes:
    return json.dumps({"type": "command", "command_id": command_id, "command": {"type": "Move"}}).encode()


def _seat_socket(stack: ServerThread, api: httpx.Client) -> tuple[RawSocket, RawSocket]:
    """Both seats' sockets of a new counter game, their hello read."""
    game = create(api, "counter", 2)
    sockets = []
    for seat in game["seats"]:
        raw = RawSocket(f"{stack.ws_base}/ws/games/{game['game_id']}?token={seat['token']}")
        assert raw.json()["type"] == "hello"
        sockets.append(raw)
    return sockets[0], sockets[1]


def _messages(api: httpx.Client) -> dict[str, int]:
    """Client messages the gateway read, by path (``harbormaster_ws_messages_total``)."""
    found = re.findall(
        r'^harbormaster_ws_messages_total\{path="(\w+)"\} (\d+)', api.get("/metrics").text, re.M
    )
    return {path: int(count) for path, count in found}


@pytest.mark.redis
def test_a_command_sent_a_byte_at_a_time_is_applied(stack: ServerThread, api: httpx.Client) -> None:
    first, second = _seat_socket(stack, api)
    before = _messages(api)
    for byte in client_frame(_command("slow")):
        first.send(bytes([byte]))
    assert first.until_result() == {
        "type": "result", "command_id": "slow", "status": "applied", "seq": 2, "first_seq": 2
    }  # fmt: skip
    after = _messages(api)
    assert (after["fast"] - before["fast"], after["queued"] - before["queued"]) == (1, 0)
    first.close()
    second.close()


@pytest.mark.redis
def test_commands_sent_in_one_write_are_applied_in_order(stack: ServerThread, api: httpx.Client) -> None:
    first, second = _seat_socket(stack, api)
    first.send(client_frame(_command("a")) + client_frame(_command("b")))
    assert first.until_result()["status"] == "applied"
    refused = first.until_result()  # seat 1 is to move after "a": "b" is refused by the rules
    assert (refused["command_id"], refused["status"]) == ("b", "rejected")
    first.close()
    second.close()


@pytest.mark.redis
def test_a_ping_between_commands_is_answered_and_the_next_command_taken(
    stack: ServerThread, api: httpx.Client
) -> None:
    first, second = _seat_socket(stack, api)
    first.send(client_frame(b"hi", opcode=0x9) + client_frame(_command("after-ping")))
    assert first.frame() == (0xA, b"hi")  # websockets answers the ping
    assert first.until_result()["status"] == "applied"
    second.send(client_frame(_command("next")))
    assert second.until_result()["status"] == "applied"
    first.close()
    second.close()


@pytest.mark.redis
def test_a_fragmented_message_is_taken_the_ordinary_way(stack: ServerThread, api: httpx.Client) -> None:
    first, second = _seat_socket(stack, api)
    before = _messages(api)
    text = _command("in-parts")
    first.send(client_frame(text[:10], fin=False) + client_frame(text[10:], opcode=0x0))
    assert first.until_result()["status"] == "applied"
    second.send(client_frame(_command("then")))
    first.send(client_frame(b'{"type":"ping"}'))  # the fast path has ended on this socket: still answered
    seen: set[str] = set()
    while "pong" not in seen:
        seen.add(first.json()["type"])
    assert second.until_result()["status"] == "applied"
    after = _messages(api)
    assert after["fast"] - before["fast"] == 1  # the second seat's move
    assert after["queued"] - before["queued"] >= 2  # the first seat's message in parts, and its ping
    first.close()
    second.close()


@pytest.mark.redis
def test_a_binary_frame_of_json_is_taken(stack: ServerThread, api: httpx.Client) -> None:
    first, second = _seat_socket(stack, api)
    first.send(client_frame(_command("bytes"), opcode=0x2) + client_frame(_command("text-after")))
    assert first.until_result()["command_id"] == "bytes"
    assert first.until_result()["command_id"] == "text-after"  # after the binary one, in order
    first.close()
    second.close()


@pytest.mark.redis
@pytest.mark.parametrize(
    ("frame", "code"),
    [
        (client_frame(b'{"type":"ping", "x":"\xff"}'), 1007),  # not UTF-8
        (client_frame(b'{"type":"ping"}', masked=False), 1002),  # clients must mask
        (client_frame(b" " * (MAX_WS_MESSAGE + 1)), CLOSE_TOO_BIG),
        (client_frame(b'{"type":"nonsense"}'), 4400),
    ],
    ids=["utf8", "unmasked", "too-big", "unknown"],
)
def test_a_bad_frame_closes_the_socket_with_its_code(
    stack: ServerThread, api: httpx.Client, frame: bytes, code: int
) -> None:
    first, second = _seat_socket(stack, api)
    first.send(frame)
    assert first.close_code() == code
    second.close()
    first.close()


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
