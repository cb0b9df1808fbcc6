"""Issue 31, findings 2 and 9: what a WebSocket client sends is refused as over HTTP (unknown fields of a
command frame are ``invalid_body``, the socket stays open). Every socket's frame budget and the counter it
reads are in ``tests/unit/gateway/test_frame_budget_and_counter.py``."""

from __future__ import annotations

import json
from typing import Any

import httpx
import redis
from websockets.sync.client import connect

from events import keys
from tests.support.client import create
from tests.support.harness import ServerThread


def result_of(ws: Any) -> dict[str, Any]:
    while (frame := json.loads(ws.recv(timeout=10)))["type"] != "result":
        pass
    result: dict[str, Any] = frame
    return result


def test_unknown_fields_of_a_command_frame_are_refused_like_an_http_body(
    stack: ServerThread, api: httpx.Client, redis_client: redis.Redis
) -> None:
    game = create(api, "race", 2)
    gid, token = game["game_id"], game["seats"][0]["token"]
    over_http = api.post(
        f"/api/games/{gid}/commands",
        json={"command": {"type": "Note", "text": "x"}, "command_id": "h1", "seat": 1},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert over_http.status_code == 422 and over_http.json()["error"] == "invalid_body"
    events = redis_client.xlen(keys.events(gid))
    note = {"type": "Note", "text": "x"}
    with connect(f"{stack.ws_base}/ws/games/{gid}?token={token}", open_timeout=10) as ws:
        ws.send(json.dumps({"type": "command", "command_id": "w1", "command": note, "seat": 1}))
        refused = result_of(ws)
        assert (refused["command_id"], refused["status"], refused["code"]) == (
            "w1",
            "rejected",
            "invalid_body",
        )
        assert "seat" in refused["message"]
        assert redis_client.xlen(keys.events(gid)) == events  # nothing changed
        ws.send(json.dumps({"type": "command", "command_id": "w2", "command": note}))
        assert result_of(ws)["status"] == "applied"  # and the socket goes on
    with connect(f"{stack.ws_base}/ws/games/{gid}", open_timeout=10) as spectator:
        spectator.send(json.dumps({"type": "command", "command_id": "s1", "command": note, "x": 1}))
        assert result_of(spectator)["code"] == "spectator"  # who may send comes first, as over HTTP
