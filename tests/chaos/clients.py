"""The chaos run's clients: HTTP players that retry through every fault, and WebSocket spectators that
reconnect with ``from=`` the last sequence number they saw."""

from __future__ import annotations

import json
import random
import threading
import time
from typing import Any

import httpx
from websockets.exceptions import ConnectionClosed, InvalidHandshake
from websockets.sync.client import connect

RETRY_S = 0.2
GIVE_UP_S = 300.0
"""A client that gets no answer for this long stops (the run then reports its game as stuck)."""


class Unreachable(Exception):
    """The gateway gave no usable answer for ``GIVE_UP_S``."""


class Api:
    """HTTP calls that ride out a killed gateway or Redis: connection errors and 5xx are retried."""

    def __init__(self, base: str) -> None:
        self.client = httpx.Client(base_url=base, timeout=15)

    def call(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        deadline = time.monotonic() + GIVE_UP_S
        while time.monotonic() < deadline:
            try:
                response = self.client.request(method, path, **kwargs)
            except httpx.HTTPError:
                time.sleep(RETRY_S)
                continue
            if response.status_code < 500:
                return response
            time.sleep(RETRY_S)
        raise Unreachable(f"{method} {path}")

    def close(self) -> None:
        self.client.close()


class Player:
    """Plays one seat of a game over HTTP with random legal commands, each under a command id of its own;
    a command whose answer was lost is sent again under the same id until it has a result."""

    def __init__(self, base: str, game_id: str, seat: int, token: str, seed: int) -> None:
        self.api = Api(base)
        self.game_id, self.seat, self.token = game_id, seat, token
        self.rng = random.Random(seed)
        self.accepted: dict[str, str] = {}
        """Command id -> what the client was told first: ``applied`` or ``pending`` (then ``rejected``
        or ``applied`` when it asked again)."""
        self.refused = 0
        self.resent = 0
        self.error: str | None = None
        self.thread = threading.Thread(target=self._run, name=f"player-{game_id}", daemon=True)

    def _run(self) -> None:
        try:
            self._play()
        except Exception as exc:  # reported by the run, never a silent death
            self.error = f"{type(exc).__name__}: {exc}"
        finally:
            self.api.close()

    def _play(self) -> None:
        auth = {"Authorization": f"Bearer {self.token}"}
        n = 0
        while True:
            state = self.api.call("GET", f"/api/games/{self.game_id}").json()
            if state["status"] == "finished":
                return
            if self.seat not in state["to_act"]:
                time.sleep(0.05)
                continue
            legal = self.api.call("GET", f"/api/games/{self.game_id}/legal", headers=auth).json()
            if not legal:
                time.sleep(0.02)
                continue
            n += 1
            command_id = f"chaos-{self.seat}-{n}-{self.rng.getrandbits(32):08x}"
            self._submit(command_id, self.rng.choice(legal), auth)

    def _submit(self, command_id: str, command: Any, auth: dict[str, str]) -> None:
        body = json.dumps({"command": command, "command_id": command_id}).encode()
        path = f"/api/games/{self.game_id}/commands"
        headers = {**auth, "Content-Type": "application/json"}
        response = self.api.call("POST", path, params={"wait": "true"}, content=body, headers=headers)
        outcome = response.json()
        if response.status_code not in (200, 202):
            self.refused += 1  # refused by the rules at once: not an accepted command
            return
        self.accepted[command_id] = outcome["status"]
        while outcome["status"] == "pending":  # accepted, result not known yet: ask until it is
            time.sleep(0.05)
            self.resent += 1
            outcome = self.api.call("GET", f"{path}/{command_id}", headers=auth).json()  # the seat's id


class Watcher:
    """A spectator's WebSocket: every event frame's seq, reconnecting after each drop with ``from=``."""

    def __init__(self, ws_base: str, game_id: str) -> None:
        self.url = f"{ws_base}/ws/games/{game_id}"
        self.seqs: list[int] = []
        self.start_seq: int | None = None
        """The first hello's seq (the game's set-up folded into it): event frames follow from there."""
        self.connects = 0
        self.resyncs = 0
        self.finished = False
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, name=f"watch-{game_id}", daemon=True)

    def _run(self) -> None:
        deadline = time.monotonic() + GIVE_UP_S
        while not self.finished and not self.stop.is_set() and time.monotonic() < deadline:
            last = self.seqs[-1] if self.seqs else (self.start_seq or 0)
            try:
                with connect(f"{self.url}?from={last}", open_timeout=10, max_size=None) as socket:
                    self.connects += 1
                    deadline = time.monotonic() + GIVE_UP_S
                    self._read(socket)
            except (OSError, ConnectionClosed, InvalidHandshake, TimeoutError):
                pass
            if not self.finished:
                time.sleep(RETRY_S)

    def _read(self, socket: Any) -> None:
        while not self.stop.is_set():
            try:
                frame = json.loads(socket.recv(timeout=1.0))
            except TimeoutError:
                continue
            if frame["type"] == "hello" and self.start_seq is None:
                self.start_seq = frame["seq"]
            if frame["type"] == "resync":
                self.resyncs += 1
            if frame["type"] == "event":
                self.seqs.append(frame["seq"])
            # The hello frame's status is the game's now, with the missed events still to come.
            if frame["type"] != "hello" and frame.get("status") == "finished":
                self.finished = True
                return
