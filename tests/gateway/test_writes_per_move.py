"""A move costs each seat's socket one write: the mover's event frame and its result leave together."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from websockets.sync.client import connect

from services.gateway import socket_writer
from tests.gateway.client import create
from tests.gateway.harness import ServerThread

pytestmark = pytest.mark.redis


def test_a_movers_event_and_result_leave_in_one_write(
    stack: ServerThread, api: httpx.Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    writes: list[int] = []
    flush = socket_writer.DirectWriter.flush

    def counted(writer: Any) -> None:
        writes.append(id(writer))
        flush(writer)

    monkeypatch.setattr(socket_writer.DirectWriter, "flush", counted)
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
