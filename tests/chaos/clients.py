"""The chaos run's clients: HTTP players that retry through every fault, and WebSocket spectators that
reconnect with ``from=`` the last sequence number they saw."""

from __future__ import annotations

import contextlib
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


class SocketPlayer:
    """Plays one seat over the seat's WebSocket (command frames, result frames), reconnecting with ``from=``
    after each drop and sending again, under the same command id, a command whose result it never got.
    It is also a watcher: every event frame of its seat's projection, exactly once across reconnects."""

    def __init__(self, base: str, game_id: str, seat: int, token: str, seed: int) -> None:
        self.api = Api(base)
        self.url = f"{base.replace('http', 'ws', 1)}/ws/games/{game_id}?token={token}"
        self.game_id, self.seat, self.token = game_id, seat, token
        self.rng = random.Random(seed)
        self.accepted: dict[str, str] = {}
        """Command id -> the status of its result frame (``applied`` or ``rejected``)."""
        self.pending: tuple[str, str] | None = None
        """A command sent whose result has not come: (command id, frame)."""
        self.to_act: list[int] = []
        self.seqs: list[int] = []
        self.start_seq: int | None = None
        self.connects = 0
        self.resyncs = 0
        self.finished = False
        self.error: str | None = None
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, name=f"ws-player-{game_id}", daemon=True)

    def _run(self) -> None:
        deadline = time.monotonic() + GIVE_UP_S
        try:
            while self._playing() and time.monotonic() < deadline:
                last = self.seqs[-1] if self.seqs else (self.start_seq or 0)
                try:
                    with connect(f"{self.url}&from={last}", open_timeout=10, max_size=None) as socket:
                        self.connects += 1
                        deadline = time.monotonic() + GIVE_UP_S
                        self._session(socket)
                except (OSError, ConnectionClosed, InvalidHandshake, TimeoutError):
                    pass
                if self._playing():
                    time.sleep(RETRY_S)
        except Exception as exc:  # reported by the run, never a silent death
            self.error = f"{type(exc).__name__}: {exc}"
        finally:
            self.api.close()

    def _playing(self) -> bool:
        """Until the game has ended and the last command's result is in (the move that ends a game has its
        result frame after the last event's)."""
        return not self.stop.is_set() and (not self.finished or self.pending is not None)

    def _session(self, socket: Any) -> None:
        if self.pending is not None:
            socket.send(self.pending[1])  # its result was lost with the last socket: ask again, same id
        while self._playing():
            with contextlib.suppress(TimeoutError):
                self._on_frame(json.loads(socket.recv(timeout=0.5)))
            if self.pending is None and self.seat in self.to_act and not self.finished:
                self._move(socket)

    def _on_frame(self, frame: dict[str, Any]) -> None:
        kind = frame["type"]
        if kind == "hello" and self.start_seq is None:
            self.start_seq = frame["seq"]
        if kind == "event":
            self.seqs.append(frame["seq"])
        if kind == "resync":
            self.resyncs += 1
        if kind in ("hello", "event", "resync"):
            self.to_act = frame["to_act"]
        if kind != "hello" and frame.get("status") == "finished":
            self.finished = True
        if kind == "result" and self.pending is not None and frame["command_id"] == self.pending[0]:
            self.accepted[frame["command_id"]] = frame["status"]
            self.pending = None

    def _move(self, socket: Any) -> None:
        auth = {"Authorization": f"Bearer {self.token}"}
        legal = self.api.call("GET", f"/api/games/{self.game_id}/legal", headers=auth).json()
        if not legal:
            self.to_act = []  # the frames in hand are behind the game: wait for the next one
            return
        command_id = f"ws-{self.seat}-{len(self.accepted)}-{self.rng.getrandbits(32):08x}"
        frame = json.dumps({"type": "command", "command": self.rng.choice(legal), "command_id": command_id})
        self.pending = (command_id, frame)
        socket.send(frame)
