"""A move costs each seat's socket one write: the mover's event frame and its result leave together."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest
from starlette.websockets import WebSocket
from websockets.sync.client import connect

from services.gateway.feeds.viewer import DirectWriter
from services.gateway.sockets import protocol, ws
from tests.support.client import create
from tests.support.harness import ServerThread


def test_a_movers_event_and_result_leave_in_one_write(
    stack: ServerThread, api: httpx.Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    writes: list[int] = []

    def counted(websocket: WebSocket) -> DirectWriter | None:
        writer = protocol.direct_writer(websocket)
        if writer is not None:
            writer.transport = _Counted(writer.transport, writes)
        return writer

    monkeypatch.setattr(ws, "direct_writer", counted)
    game = create(api, "counter", 2, options={"limit": 1000})
    url = f"{stack.ws_base}/ws/games/{game['game_id']}?token="
    with (
        connect(url + game["seats"][0]["token"]) as first,
        connect(url + game["seats"][1]["token"]) as second,
    ):
        seats = [first, second]
        for socket in seats:
            assert json.loads(socket.recv(timeout=10))["type"] == "hello"
        moves = 20
        for move in range(moves):
            mover, other = seats[move % 2], seats[(move + 1) % 2]
            if move == 1:
                writes.clear()  # from here on every socket writes directly
            mover.send(json.dumps({"type": "command", "command_id": f"m{move}", "command": {"type": "Move"}}))
            assert [json.loads(mover.recv(timeout=10))["type"] for _ in range(2)] == ["event", "result"]
            assert json.loads(other.recv(timeout=10))["type"] == "event"
    assert len(writes) == 2 * (moves - 1)


class _Counted(asyncio.Transport):
    """A socket's transport that notes each of its writes (the write itself goes on as before)."""

    def __init__(self, transport: asyncio.Transport, writes: list[int]) -> None:
        super().__init__()
        self._transport, self._writes = transport, writes

    def write(self, data: Any) -> None:
        self._writes.append(id(self))
        self._transport.write(data)

    def is_closing(self) -> bool:
        return self._transport.is_closing()

    def get_write_buffer_size(self) -> int:
        return self._transport.get_write_buffer_size()
