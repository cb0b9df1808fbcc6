"""Small helpers for driving the gateway as a client would: HTTP calls and WebSocket recorders."""

from __future__ import annotations

import json
import random
import socket
import threading
import time
from typing import Any

import httpx
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect


def create(api: httpx.Client, game: str, seats: int, **extra: Any) -> dict[str, Any]:
    """Create a game; returns the response body (game id and seat tokens)."""
    response = api.post("/api/games", json={"game": game, "seats": seats, **extra})
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def post_command(
    api: httpx.Client, game_id: str, token: str | None, body: Any, wait: bool = True
) -> httpx.Response:
    headers = bearer(token) if token else {}
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    return api.post(
        f"/api/games/{game_id}/commands",
        params={"wait": "true"} if wait else {},
        content=content,
        headers={**headers, "Content-Type": "application/json"},
    )


def play_random(
    api: httpx.Client,
    game_id: str,
    tokens: dict[int, str],
    seed: int,
    limit: int = 20_000,
    seen: list[bytes] | None = None,
) -> int:
    """Play the game to its end over HTTP, every seat choosing a random legal command; returns moves.

    ``seen`` collects the raw bodies a spectator got meanwhile: its view before each move, and the
    event log every tenth move.
    """
    rng = random.Random(seed)
    moves = 0
    while moves < limit:
        response = api.get(f"/api/games/{game_id}")
        state = response.json()
        if seen is not None and state["status"] == "live":
            seen.append(response.content)
            if moves % 10 == 0:
                seen.append(api.get(f"/api/games/{game_id}/events").content)
        if state["status"] == "finished":
            return moves
        seat = rng.choice(state["to_act"])
        legal = api.get(f"/api/games/{game_id}/legal", headers=bearer(tokens[seat])).json()
        assert legal, f"seat {seat} is to act but has no legal command"
        response = post_command(api, game_id, tokens[seat], {"command": rng.choice(legal)})
        assert response.status_code == 200, response.text
        assert response.json()["status"] == "applied"
        moves += 1
    raise AssertionError(f"game {game_id} did not end within {limit} moves")


class Recorder:
    """A WebSocket read in a background thread; keeps every raw frame and the close code."""

    def __init__(self, url: str, origin: str | None = None, headers: dict[str, str] | None = None) -> None:
        self.url = url
        self.origin = origin
        self.headers = headers  # e.g. a browser's session cookie
        self.raw: list[str] = []
        self.close_code: int | None = None
        self.close_reason = ""
        self.socket: ClientConnection | None = None
        self.ready = threading.Event()
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()
        self.ready.wait(10)

    def _run(self) -> None:
        try:
            with connect(
                self.url,
                origin=self.origin,  # type: ignore[arg-type]
                additional_headers=self.headers,
                max_size=None,
            ) as socket:
                self.socket = socket
                self.ready.set()
                while True:
                    message = socket.recv()
                    self.raw.append(message if isinstance(message, str) else message.decode())
        except ConnectionClosed as exc:
            self.close_code = exc.rcvd.code if exc.rcvd else None
            self.close_reason = exc.rcvd.reason if exc.rcvd else ""
        finally:
            self.ready.set()
            self.done.set()

    def send(self, text: str | bytes) -> None:
        assert self.socket is not None
        self.socket.send(text)

    @property
    def frames(self) -> list[dict[str, Any]]:
        return [json.loads(r) for r in list(self.raw)]

    def last_seq(self) -> int:
        frames = self.frames
        return max((f["seq"] for f in frames if "seq" in f), default=0)

    def close(self) -> None:
        if self.socket is not None:
            self.socket.close()
        self.done.wait(5)


def event_seqs(frames: list[dict[str, Any]]) -> list[int]:
    return [f["seq"] for f in frames if f["type"] == "event"]


def wait_until(check: Any, timeout: float = 15) -> None:
    """Poll ``check`` until it is true; fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


class RawResponses:
    """HTTP/1.1 answers read off a raw socket one whole at a time: the head, then its ``Content-Length`` of
    body (the two may come in separate packets; what is left over belongs to the next answer)."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.data = b""

    def status_line(self) -> bytes:
        """The next answer's status line (``HTTP/1.1 200 OK``), its body read and set aside."""
        while b"\r\n\r\n" not in self.data:
            self._receive()
        head, _, self.data = self.data.partition(b"\r\n\r\n")
        lines = head.split(b"\r\n")
        sizes = [int(line.split(b":", 1)[1]) for line in lines if line.lower().startswith(b"content-length:")]
        while len(self.data) < sum(sizes):
            self._receive()
        self.data = self.data[sum(sizes) :]
        return lines[0]

    def _receive(self) -> None:
        chunk = self.sock.recv(65536)
        assert chunk, "the connection was closed before a whole answer"
        self.data += chunk
