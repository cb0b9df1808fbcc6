"""Issue 31, finding 9, over a real socket: a DNS-rebinding page is closed 4403, the public URL and
configured origins are allowed. The check's rules alone are in ``tests/unit/gateway/test_origins.py``."""

from __future__ import annotations

import base64
import os
import socket

import httpx
import redis

from tests.support.attacks import close_code, read_rest
from tests.support.client import Recorder, create, wait_until
from tests.support.harness import ServerThread, running_stack


def test_a_dns_rebinding_page_is_closed_4403(stack: ServerThread, api: httpx.Client) -> None:
    gid = create(api, "race", 2)["game_id"]
    port = stack.port
    rebound = Recorder(f"ws://127.0.0.1:{port}/ws/games/{gid}", origin=f"http://evil.example:{port}")
    assert rebound.done.wait(5) and rebound.close_code == 4403
    with socket.create_connection(("127.0.0.1", port)) as raw:  # its Host header its own name too
        key = base64.b64encode(os.urandom(16)).decode()
        raw.sendall(
            f"GET /ws/games/{gid} HTTP/1.1\r\nHost: evil.example:{port}\r\nOrigin: http://evil.example:{port}\r\n"
            f"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
            "Sec-WebSocket-Version: 13\r\n\r\n".encode()
        )
        assert close_code(read_rest(raw)) == 4403
    for origin in (f"http://127.0.0.1:{port}", f"http://localhost:{port}"):
        own = Recorder(f"ws://127.0.0.1:{port}/ws/games/{gid}", origin=origin)
        wait_until(lambda own=own: own.raw)
        assert own.frames[0]["type"] == "hello"
        own.close()


def test_the_public_url_is_an_allowed_origin(redis_url: str, redis_client: redis.Redis) -> None:
    with running_stack(redis_url, settings={"public_url": "https://play.example"}) as server:
        with httpx.Client(base_url=server.base) as api:
            gid = create(api, "race", 2)["game_id"]
        allowed = Recorder(f"{server.ws_base}/ws/games/{gid}", origin="https://play.example")
        wait_until(lambda: allowed.raw)
        allowed.close()
        refused = Recorder(f"{server.ws_base}/ws/games/{gid}", origin="https://other.example")
        assert refused.done.wait(5) and refused.close_code == 4403


def test_configured_origins_still_work(redis_url: str, redis_client: redis.Redis) -> None:
    with running_stack(redis_url, allowed_origins=("https://club.example",)) as server:
        with httpx.Client(base_url=server.base) as api:
            gid = create(api, "race", 2)["game_id"]
        recorder = Recorder(f"{server.ws_base}/ws/games/{gid}", origin="https://club.example:443")
        wait_until(lambda: recorder.raw)
        recorder.close()
