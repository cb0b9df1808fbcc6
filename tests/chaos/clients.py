"""The chaos run's clients: HTTP players that retry through every fault, and WebSocket spectators that
reconnect with ``from=`` the last sequence number they saw.

After Redis lost its last seconds (the "rollback" fault) a client is shown the store's truth: a ``resync``
(or, reconnecting, a ``hello``) at a lower seq than it had. It forgets the events past it, sends again under
the same ids the commands whose results have not come, and plays on. Every client keeps going until the
run tells it to stop, even after its game ended: a rollback may take the end back."""

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
RESEND_S = 5.0
"""A command still pending this long is sent again under its id (it may have been lost with a rollback)."""
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
        self.accepted_at: dict[str, float] = {}
        """Command id -> when (``time.time()``) it was told so: a command acknowledged in the seconds a
        rollback took away may be lost (``docs/reliability.md``)."""
        self.refused = 0
        self.resent = 0
        self.error: str | None = None
        self.stop = threading.Event()
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
        while not self.stop.is_set():
            state = self.api.call("GET", f"/api/games/{self.game_id}").json()
            if state["status"] == "finished":  # until told to stop: a rollback may take the end back
                self.stop.wait(0.5)
                continue
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
        self.accepted_at[command_id] = time.time()
        asked = time.monotonic()
        while outcome["status"] == "pending":  # accepted, result not known yet: ask until it is
            time.sleep(0.05)
            self.resent += 1
            if time.monotonic() - asked > RESEND_S:  # lost with Redis's last seconds? Same id: never twice
                asked = time.monotonic()
                response = self.api.call("POST", path, content=body, headers=headers)
                if response.status_code not in (200, 202):
                    return  # recorded as refused meanwhile
            outcome = self.api.call("GET", f"{path}/{command_id}", headers=auth).json()  # the seat's id


class Seen:
    """What a WebSocket client holds: the seqs of the event frames it got (each once, in order, across
    reconnects), those a ``resync`` stood for, and the view of its latest frame."""

    game_id: str
    seat: int | None

    def __init__(self) -> None:
        self.seqs: list[int] = []
        self.start_seq: int | None = None
        """The first hello's seq (the game's set-up folded into it): event frames follow from there."""
        self.covered: set[int] = set()
        """Events a ``resync`` stood for (the fresh view replaces the frames skipped)."""
        self.connects = 0
        self.resyncs = 0
        self.rewinds = 0
        """Frames that took the client back: the store had lost events it had been sent."""
        self.finished = False
        self.view: Any = None
        self.view_seq = 0
        self.to_act: list[int] = []

    @property
    def last(self) -> int:
        return max(self.seqs[-1] if self.seqs else (self.start_seq or 0), self.view_seq)

    def saw(self, frame: dict[str, Any]) -> bool:
        """Take a frame in; True when it took the client back (``hello`` or ``resync`` below what it had)."""
        kind = frame["type"]
        if kind not in ("hello", "event", "resync"):
            return False
        if kind == "hello" and self.start_seq is None:
            self.start_seq = frame["seq"]
        rewound = kind != "event" and bool(frame["seq"] < self.last)
        if rewound:  # the events past it no longer exist: forget them, the ones that follow replace them
            self.rewinds += 1
            self.seqs = [seq for seq in self.seqs if seq <= frame["seq"]]
            self.covered = {seq for seq in self.covered if seq <= frame["seq"]}
        if kind == "resync":
            self.resyncs += 1
            self.covered.update(range(self.last + 1, frame["seq"] + 1))
        if kind == "event":
            self.seqs.append(frame["seq"])
        self.view, self.view_seq, self.to_act = frame["view"], frame["seq"], frame["to_act"]
        # The hello frame's status is the game's now, with the missed events still to come.
        if kind != "hello" or rewound:
            self.finished = frame["status"] == "finished"
        return rewound


class Watcher(Seen):
    """A spectator's WebSocket: every event frame's seq, reconnecting after each drop with ``from=``."""

    seat: int | None = None

    def __init__(self, ws_base: str, game_id: str) -> None:
        super().__init__()
        self.url = f"{ws_base}/ws/games/{game_id}"
        self.game_id = game_id
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, name=f"watch-{game_id}", daemon=True)

    def _run(self) -> None:
        deadline = time.monotonic() + GIVE_UP_S
        while not self.stop.is_set() and time.monotonic() < deadline:
            last = self.last
            try:
                with connect(f"{self.url}?from={last}", open_timeout=10, max_size=None) as socket:
                    self.connects += 1
                    deadline = time.monotonic() + GIVE_UP_S
                    self._read(socket)
            except (OSError, ConnectionClosed, InvalidHandshake, TimeoutError):
                pass
            self.stop.wait(RETRY_S)

    def _read(self, socket: Any) -> None:
        while not self.stop.is_set():  # until told to stop, even once finished: a rollback may take it back
            try:
                self.saw(json.loads(socket.recv(timeout=1.0)))
            except TimeoutError:
                continue


class SocketPlayer(Seen):
    """Plays one seat over the seat's WebSocket (command frames, result frames), reconnecting with ``from=``
    after each drop and sending again, under the same command id, a command whose result it never got
    (also when a rollback took the client back: it may have been lost). It is also a watcher: every event
    frame of its seat's projection, exactly once across reconnects."""

    def __init__(self, base: str, game_id: str, seat: int, token: str, seed: int) -> None:
        super().__init__()
        self.api = Api(base)
        self.url = f"{base.replace('http', 'ws', 1)}/ws/games/{game_id}?token={token}"
        self.game_id, self.seat, self.token = game_id, seat, token
        self.rng = random.Random(seed)
        self.accepted: dict[str, str] = {}
        """Command id -> the status of its result frame (``applied`` or ``rejected``)."""
        self.accepted_at: dict[str, float] = {}
        self.pending: tuple[str, str] | None = None
        """A command sent whose result has not come: (command id, frame)."""
        self.error: str | None = None
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, name=f"ws-player-{game_id}", daemon=True)

    def _run(self) -> None:
        deadline = time.monotonic() + GIVE_UP_S
        try:
            while self._playing() and time.monotonic() < deadline:
                last = self.last
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
        """Until told to stop: after the game has ended too (a rollback may take the end back)."""
        return not self.stop.is_set()

    def _session(self, socket: Any) -> None:
        if self.pending is not None:
            socket.send(self.pending[1])  # its result was lost with the last socket: ask again, same id
        while self._playing():
            with contextlib.suppress(TimeoutError):
                self._on_frame(socket, json.loads(socket.recv(timeout=0.5)))
            if self.pending is None and self.seat in self.to_act and not self.finished:
                self._move(socket)

    def _on_frame(self, socket: Any, frame: dict[str, Any]) -> None:
        if self.saw(frame) and self.pending is not None:
            socket.send(self.pending[1])  # may have been lost with Redis's last seconds: same id again
        if frame["type"] == "result" and self.pending is not None and frame["command_id"] == self.pending[0]:
            self.accepted[frame["command_id"]] = frame["status"]
            self.accepted_at[frame["command_id"]] = time.time()
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
