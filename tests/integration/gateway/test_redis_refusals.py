"""Issue 31, finding 5: a Redis that answers but refuses writes (out of memory, a failed save, a read-only
replica) is unavailable to clients, as a Redis that is down is: 503 ``unavailable`` with ``Retry-After``
over HTTP, keep-alive kept; a WebSocket command ``rejected``, code ``unavailable``; never a 500. Each
condition is made real on a Redis of the test's own, then lifted, and the gateway serves again."""

from __future__ import annotations

import json
import socket
from typing import Any

import httpx
import pytest
import redis
from websockets.sync.client import connect

from events import keys
from services.gateway.context import Gateway
from services.redis_launcher import EmbeddedRedis
from tests.support.client import RawResponses, bearer, create, post_command
from tests.support.harness import ServerThread
from tests.support.pipeline import services_for
from tests.support.refusals import Condition, failed_save, out_of_memory, read_only


def raw_exchange(port: int, requests: list[bytes]) -> list[bytes]:
    """Each request sent after the previous answer, all on one connection: the status line of each."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        answers = RawResponses(sock)
        lines = []
        for request in requests:
            sock.sendall(request)
            lines.append(answers.status_line())
        return lines


def assert_unavailable(response: httpx.Response) -> None:
    assert response.status_code == 503, (response.request.url, response.status_code, response.text)
    assert response.json()["error"] == "unavailable"
    assert int(response.headers["retry-after"]) >= 1
    assert response.headers.get("connection", "").lower() != "close"


def websocket_command(url: str, command_id: str) -> dict[str, Any]:
    with connect(url, open_timeout=10) as ws:
        assert json.loads(ws.recv(timeout=10))["type"] == "hello"
        command = {"type": "Note", "text": "x"}
        ws.send(json.dumps({"type": "command", "command_id": command_id, "command": command}))
        while (frame := json.loads(ws.recv(timeout=30)))["type"] != "result":
            pass
        result: dict[str, Any] = frame
        return result


def assert_refused_cleanly(server: ServerThread, api: httpx.Client, gid: str, token: str) -> None:
    """Writes answer 503 (keep-alive kept), reads 200, a socket's command ``rejected``: never a 500."""
    assert_unavailable(api.post("/api/games", json={"game": "race", "seats": 2}))
    assert_unavailable(post_command(api, gid, token, {"command": {"type": "Note", "text": "x"}}))
    assert api.get(f"/api/games/{gid}/legal", headers=bearer(token)).status_code == 200  # reads go on
    body = b'{"game": "race", "seats": 2}'
    post = b"POST /api/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
    post += b"Content-Length: %d\r\n\r\n%s" % (len(body), body)
    catalog = b"GET /api/catalog HTTP/1.1\r\nHost: x\r\n\r\n"
    lines = raw_exchange(server.port, [post, post, catalog])
    assert [line.split(b" ")[1] for line in lines] == [b"503", b"503", b"200"]
    result = websocket_command(f"{server.ws_base}/ws/games/{gid}?token={token}", "c1")
    assert (result["status"], result["code"]) == ("rejected", "unavailable")
    gateway: Gateway = server.app.state.gateway
    assert not [key for key in gateway.stats.requests if key[2] >= 500 and key[2] != 503]


@pytest.mark.parametrize(
    "condition", [out_of_memory, failed_save, read_only], ids=["oom", "misconf", "readonly"]
)
def test_a_redis_refusing_writes_is_503_unavailable_never_500(
    own_redis: EmbeddedRedis, condition: Condition
) -> None:
    server = ServerThread(services_for(own_redis.url), own_redis.url)
    server.start()
    client = redis.Redis.from_url(own_redis.url)
    try:
        with httpx.Client(base_url=server.base, timeout=30) as api:
            game = create(api, "race", 2)
            gid, token = game["game_id"], game["seats"][0]["token"]
            events = client.xlen(keys.events(gid))
            lift = condition(client)
            try:
                assert_refused_cleanly(server, api, gid, token)
                assert client.xlen(keys.events(gid)) == events
            finally:
                lift()
            assert api.post("/api/games", json={"game": "race", "seats": 2}).status_code == 201
    finally:
        client.close()
        server.stop()
