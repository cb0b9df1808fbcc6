"""``python -m tests.bench.move_walk [GAME]``: one move's path through the code, measured (issue 46).

A gateway and a fold worker run in threads of this process on an embedded Redis (``tests/support/harness.py``,
as the gateway tests run them), interpreted (``HARBORMASTER_INTERPRETED=1``: compiled code has no Python
frames to see; ``tests/__init__.py`` chooses the forms before this module runs, so ``main`` starts the
walk again in a fresh interpreter with it set). A seat sends a command frame on its WebSocket; from the frame's sending to its ``result``
frame's arrival, every call into a module of the project (``domain``, ``events``, ``workers``, ``services``)
on the gateway's thread and on the fold worker's is recorded with its caller. The walk is the modules in the
order first entered. A *back-and-forth* is a call back up: from a module on a lower layer into one on a
higher layer (``domain`` < ``events`` < ``workers`` < the gateway's layers, ``tests/unit/contract/gateway_graph.py``),
as a callback makes; each pair of modules is counted once. One warm-up move is made first, unrecorded.

The worker's idle loop (its reads of an empty inbox, lease renewals) runs in the same window: modules it
alone enters may show; the walk names what it found, not what it expected.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import threading
from pathlib import Path
from types import FrameType
from typing import Any

import httpx
from websockets.sync.client import ClientConnection, connect

from services.move_path import COMPILED
from services.redis_launcher import EmbeddedRedis
from tests.support.harness import running_stack
from tests.unit.contract.gateway_graph import LAYERS, layer_of

ROOTS = ("domain.", "events.", "workers.", "services.")
_recording = threading.Event()
_calls: list[tuple[int, str, str]] = []


def _profile(frame: FrameType, event: str, arg: Any) -> None:
    if event == "call" and _recording.is_set():
        module = frame.f_globals.get("__name__", "")
        if module.startswith(ROOTS):
            caller = frame.f_back.f_globals.get("__name__", "") if frame.f_back is not None else ""
            _calls.append((threading.get_ident(), caller if caller.startswith(ROOTS) else "", module))


def rank(module: str) -> int:
    """How high a module sits: ``domain`` 0, ``events`` 1, ``workers`` 2, the gateway's parts 3 and up by
    their layers, the rest of ``services`` above them."""
    names = module.split(".")
    if names[:2] == ["services", "gateway"] and len(names) > 2:
        return 3 + layer_of(names[2])
    return {"domain": 0, "events": 1, "workers": 2}.get(names[0], 3 + len(LAYERS) + 1)


def walk(calls: list[tuple[str, str]]) -> tuple[list[str], list[tuple[str, str]]]:
    """The modules in the order first entered, and the calls back up (caller, callee), each pair once."""
    order: list[str] = []
    back: list[tuple[str, str]] = []
    for caller, callee in calls:
        if callee not in order:
            order.append(callee)
        if caller and rank(callee) > rank(caller) and (caller, callee) not in back:
            back.append((caller, callee))
    return order, back


def _socket(base: str, game_id: str, token: str) -> ClientConnection:
    socket = connect(f"{base}/ws/games/{game_id}?token={token}", open_timeout=10).__enter__()
    assert json.loads(socket.recv(timeout=10))["type"] == "hello"
    return socket


def _legal(api: httpx.Client, game_id: str, token: str) -> Any:
    legal = api.get(f"/api/games/{game_id}/legal", headers={"Authorization": f"Bearer {token}"}).json()
    return legal["commands"][0] if isinstance(legal, dict) else legal[0]


def _move(socket: ClientConnection, command: Any, command_id: str) -> None:
    socket.send(json.dumps({"type": "command", "command_id": command_id, "command": command}))
    while (frame := json.loads(socket.recv(timeout=30)))["type"] != "result":
        pass
    assert frame["status"] == "applied", frame


def measure(game: str = "manila") -> tuple[list[str], list[tuple[str, str]]]:
    """The walk of one move, and its calls back up."""
    if any(
        not str(getattr(sys.modules[m], "__file__", "")).endswith(".py") for m in COMPILED if m in sys.modules
    ):
        raise RuntimeError("the move path is compiled here: walk it with HARBORMASTER_INTERPRETED=1")
    threading.setprofile(_profile)
    with tempfile.TemporaryDirectory() as folder:
        server = EmbeddedRedis(Path(folder))
        server.start()
        try:
            with running_stack(server.url) as stack, httpx.Client(base_url=stack.base, timeout=30) as api:
                created = api.post("/api/games", json={"game": game, "seats": 3}).json()
                game_id, tokens = created["game_id"], [s["token"] for s in created["seats"]]
                sockets = [_socket(stack.ws_base, game_id, token) for token in tokens]

                def to_act() -> int:
                    seats: list[int] = api.get(f"/api/games/{game_id}").json()["to_act"]
                    return seats[0]

                seat = to_act()
                _move(sockets[seat], _legal(api, game_id, tokens[seat]), "warm-up")
                seat = to_act()
                command = _legal(api, game_id, tokens[seat])
                _recording.set()
                _move(sockets[seat], command, "walked")
                _recording.clear()
                gateway, worker = stack.thread.ident, stack.worker.thread.ident if stack.worker else None
                for socket in sockets:
                    socket.close()
        finally:
            server.stop()
            threading.setprofile(None)
    return walk([(caller, callee) for thread, caller, callee in _calls if thread in (gateway, worker)])


def main(argv: list[str]) -> None:
    order, back = measure(*argv[:1])
    out = sys.stdout
    out.write(f"{len(order)} modules, {len(back)} calls back up\n")
    out.write("".join(f"  {i}. {m}\n" for i, m in enumerate(order, 1)))
    out.write("".join(f"  back up: {caller} -> {callee}\n" for caller, callee in back))


if __name__ == "__main__":
    if os.environ.get("HARBORMASTER_INTERPRETED") != "1":
        command = [sys.executable, "-m", "tests.bench.move_walk", *sys.argv[1:]]
        os.execve(sys.executable, command, {**os.environ, "HARBORMASTER_INTERPRETED": "1"})
    main(sys.argv[1:])
