"""The gateway's fast path for a client's text frames (``sockets/protocol.py``'s ``TextReader``) on a
real socket, fed frames the way a browser never would: a byte at a time, several in one write, pings
between, fragments, binary, and bad frames closed with their code. The parser alone is in
``tests/unit/gateway/test_socket_reader.py``."""

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
from websockets.frames import Frame, Opcode

from services.gateway.wire.close_codes import CLOSE_TOO_BIG, MAX_WS_MESSAGE
from tests.support.client import create
from tests.support.frames import client_frame
from tests.support.harness import ServerThread

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


def test_commands_sent_in_one_write_are_applied_in_order(stack: ServerThread, api: httpx.Client) -> None:
    first, second = _seat_socket(stack, api)
    first.send(client_frame(_command("a")) + client_frame(_command("b")))
    assert first.until_result()["status"] == "applied"
    refused = first.until_result()  # seat 1 is to move after "a": "b" is refused by the rules
    assert (refused["command_id"], refused["status"]) == ("b", "rejected")
    first.close()
    second.close()


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


def test_a_binary_frame_of_json_is_taken(stack: ServerThread, api: httpx.Client) -> None:
    first, second = _seat_socket(stack, api)
    first.send(client_frame(_command("bytes"), opcode=0x2) + client_frame(_command("text-after")))
    assert first.until_result()["command_id"] == "bytes"
    assert first.until_result()["command_id"] == "text-after"  # after the binary one, in order
    first.close()
    second.close()


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
