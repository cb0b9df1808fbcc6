"""Issue 31, finding 9: the WebSocket ``Origin`` check trusts configured hosts and the address a connection
came in on, never the request's own ``Host`` (a DNS-rebinding page sends its own name in both)."""

from __future__ import annotations

import base64
import os
import socket

import httpx
import pytest
import redis

from services.gateway.access.origins import Origins, bound_hosts, origin_key
from tests.gateway.attacks import close_code, read_rest
from tests.gateway.client import Recorder, create, wait_until
from tests.gateway.harness import ServerThread, running_stack

LOCAL = ("127.0.0.1", 8000)


def test_origins_are_compared_by_scheme_host_and_port() -> None:
    assert origin_key("https://Play.Example") == (True, "play.example", 443)
    assert origin_key("http://play.example:8080") == (False, "play.example", 8080)
    assert origin_key("wss://[::1]:9000") == (True, "::1", 9000)
    for bad in ("null", "file://", "http://x:99999", "ftp://x", "", "http://"):
        assert origin_key(bad) is None, bad


def test_the_bound_address_and_localhost_on_loopback_are_allowed() -> None:
    origins = Origins((), None)
    assert origins.allows(None, LOCAL)  # not a browser page
    assert origins.allows("http://127.0.0.1:8000", LOCAL)
    assert origins.allows("http://localhost:8000", LOCAL)  # what ``serve`` tells users to open
    assert not origins.allows("http://localhost:8001", LOCAL)
    assert not origins.allows("http://127.0.0.1:8000", None)  # a Unix socket: only configured origins
    assert bound_hosts(("192.168.1.5", 80)) == {("192.168.1.5", 80)}  # not loopback: no localhost
    assert Origins((), None).allows("http://192.168.1.5", ("192.168.1.5", 80))


def test_a_rebound_name_is_refused_and_configured_ones_are_allowed() -> None:
    origins = Origins(("https://club.example", " "), "https://play.example/")
    assert not origins.allows("http://evil.example:8000", LOCAL)  # whatever its Host header says
    assert origins.allows("https://club.example", LOCAL)
    assert origins.allows("https://club.example:443", LOCAL)
    assert origins.allows("https://play.example", LOCAL)
    assert not origins.allows("http://play.example", LOCAL)  # another scheme is another origin
    assert Origins(("*",), None).allows("http://evil.example", LOCAL)


@pytest.mark.redis
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


@pytest.mark.redis
def test_the_public_url_is_an_allowed_origin(redis_url: str, redis_client: redis.Redis) -> None:
    with running_stack(redis_url, settings={"public_url": "https://play.example"}) as server:
        with httpx.Client(base_url=server.base) as api:
            gid = create(api, "race", 2)["game_id"]
        allowed = Recorder(f"{server.ws_base}/ws/games/{gid}", origin="https://play.example")
        wait_until(lambda: allowed.raw)
        allowed.close()
        refused = Recorder(f"{server.ws_base}/ws/games/{gid}", origin="https://other.example")
        assert refused.done.wait(5) and refused.close_code == 4403


@pytest.mark.redis
def test_configured_origins_still_work(redis_url: str, redis_client: redis.Redis) -> None:
    with running_stack(redis_url, allowed_origins=("https://club.example",)) as server:
        with httpx.Client(base_url=server.base) as api:
            gid = create(api, "race", 2)["game_id"]
        recorder = Recorder(f"{server.ws_base}/ws/games/{gid}", origin="https://club.example:443")
        wait_until(lambda: recorder.raw)
        recorder.close()
