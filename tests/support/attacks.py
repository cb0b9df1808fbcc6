"""Hostile clients of issue 31, each run in a process of its own (``python -m tests.support.attacks KIND …``)
so that the gateway under test (a thread of the test's process) competes with them for the machine, not
for the test process's interpreter. Each prints ``ready`` once started, attacks when it reads a line, and
prints one JSON line of what it saw when it ends.

- ``ping-flood PORT GAME SECONDS [text|control]``: a spectator socket (no token) that sends pings as fast
  as it can and never reads: ``{"type": "ping"}`` text frames, or WebSocket ping frames; cut off, it
  connects again, for SECONDS;
- ``big-frames PORT GAME SOCKETS``: sockets that each announce a 16 MiB text frame and send its payload
  (64 KiB at a time, 16 MiB at most) until the gateway closes them.

The close code is read from what the gateway had sent once the socket is closed (the close frame is the
last frame of it); ``null`` when none came (the connection was dropped).
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import socket
import struct
import sys
import time
from typing import Any

PING_TEXT = b'{"type":"ping"}'
BIG = 16 * 1024 * 1024
CHUNK = 64 * 1024


def masked(payload: bytes, opcode: int = 0x1, length: int | None = None) -> bytes:
    """A final, masked client frame (RFC 6455 5.2); ``length`` may announce more than ``payload`` holds."""
    size = len(payload) if length is None else length
    if size < 126:
        head = struct.pack("!BB", 0x80 | opcode, 0x80 | size)
    elif size < 1 << 16:
        head = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, size)
    else:
        head = struct.pack("!BBQ", 0x80 | opcode, 0x80 | 127, size)
    key = os.urandom(4)
    return head + key + bytes(b ^ key[i % 4] for i, b in enumerate(payload))


def open_socket(port: int, path: str, rcvbuf: int | None = None, sndbuf: int | None = None) -> socket.socket:
    """A WebSocket opened by hand (so that it can misbehave), the handshake's answer left unread."""
    sock = socket.socket()
    if rcvbuf is not None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    if sndbuf is not None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, sndbuf)
    sock.connect(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall(
        f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode()
    )
    return sock


def close_code(received: bytes) -> int | None:
    """The code of the close frame among the server's frames after the handshake's answer, if any."""
    _, _, data = received.partition(b"\r\n\r\n")
    pos = 0
    while len(data) - pos >= 2:
        opcode, length, head = data[pos] & 0x0F, data[pos + 1] & 0x7F, pos + 2
        if length == 126:
            length, head = int.from_bytes(data[pos + 2 : pos + 4], "big"), pos + 4
        elif length == 127:
            length, head = int.from_bytes(data[pos + 2 : pos + 10], "big"), pos + 10
        if opcode == 0x8 and length >= 2 and head + 2 <= len(data):
            return int.from_bytes(data[head : head + 2], "big")
        pos = head + length
    return None


def read_rest(sock: socket.socket, timeout_s: float = 5.0) -> bytes:
    """Everything the server sent, up to its end of the connection (or the timeout)."""
    sock.settimeout(timeout_s)
    chunks = []
    try:
        while chunk := sock.recv(1 << 20):
            chunks.append(chunk)
    except OSError:
        pass
    return b"".join(chunks)


def ping_flood(port: int, game_id: str, seconds: float, kind: str) -> dict[str, Any]:
    """Flood, and when cut off connect again and flood again, until ``seconds`` have passed."""
    frame = masked(PING_TEXT) if kind == "text" else masked(b"", opcode=0x9)
    deadline = time.monotonic() + seconds
    connections, frames, cut_after, codes = 0, 0, [], []
    while time.monotonic() < deadline:
        sent, closed_after, code = _flood_once(port, game_id, frame * 256, deadline)
        connections += 1
        frames += sent
        if closed_after is not None:
            cut_after.append(closed_after)
        codes.append(code)
    return {"connections": connections, "frames": frames, "cut_after_s": cut_after, "close_codes": codes}


def _flood_once(
    port: int, game_id: str, burst: bytes, deadline: float
) -> tuple[int, float | None, int | None]:
    """One socket flooded until the gateway cuts it off (or the deadline): frames sent, when it was cut off,
    and the close code it was sent."""
    # A send buffer of 64 KiB, as a client behind a real link has: on loopback the kernel would otherwise
    # take megabytes a socket before the gateway cuts it off, and the attackers' own copying of gigabytes
    # would be the load the test measures, not the gateway's.
    sock = open_socket(port, f"/ws/games/{game_id}", rcvbuf=4096, sndbuf=64 * 1024)
    sent, started = 0, time.monotonic()
    closed_after: float | None = None
    while time.monotonic() < deadline:
        try:
            sock.sendall(burst)
        except OSError:
            closed_after = time.monotonic() - started
            break
        sent += 256
    received = read_rest(sock, 1.0)
    sock.close()
    return sent, closed_after, close_code(received)


def big_frames(port: int, game_id: str, count: int) -> dict[str, Any]:
    sockets = [open_socket(port, f"/ws/games/{game_id}") for _ in range(count)]
    time.sleep(0.5)  # the handshakes are answered and each socket's task reads frames
    chunk = masked(b"", length=BIG)
    sent = [0] * count
    open_ = set(range(count))
    payload = b"x" * CHUNK
    for i in range(count):
        sockets[i].sendall(chunk)
    while open_ and max(sent) < BIG:
        for i in list(open_):
            try:
                sockets[i].sendall(payload)
                sent[i] += CHUNK
            except OSError:
                open_.discard(i)
    codes = []
    for sock in sockets:
        with contextlib.suppress(OSError):  # already reset by the gateway
            sock.shutdown(socket.SHUT_WR)
        codes.append(close_code(read_rest(sock)))
        sock.close()
    return {"sent": sent, "close_codes": codes}


def main(argv: list[str]) -> None:
    kind, port, game_id = argv[0], int(argv[1]), argv[2]
    sys.stdout.write("ready\n")  # started (interpreter and imports): the attack begins on "go"
    sys.stdout.flush()
    sys.stdin.readline()
    if kind == "ping-flood":
        report = ping_flood(port, game_id, float(argv[3]), argv[4] if len(argv) > 4 else "text")
    elif kind == "big-frames":
        report = big_frames(port, game_id, int(argv[3]))
    else:
        raise SystemExit(f"unknown attack {kind!r}")
    sys.stdout.write(json.dumps(report) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
