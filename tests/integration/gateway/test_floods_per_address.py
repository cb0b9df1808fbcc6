"""Issue 43, finding 15: floods that were not limited, each made, then the refusal asserted.

- 39,197 WebSocket connections in 30 s from 8 addresses (the gateway at 85 % of a core): an address now
  opens at most ``HARBORMASTER_WS_OPENS_PER_ADDRESS`` a second (bursts of ``RATE_BURST`` seconds' worth),
  the rest refused 429 before the handshake;
- 301 anonymous game-list reads a second: ``GET /api/…`` is charged per address
  (``HARBORMASTER_READS_PER_ADDRESS``), a cookie or token sent or not;
- uvicorn believed ``X-Forwarded-For`` from 127.0.0.1, so 40 sign-ins with forged addresses got no 429:
  now only ``HARBORMASTER_TRUSTED_PROXIES`` are believed (default: nobody).

Each client has an address of its own: it connects from another loopback address (127.0.0.x)."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

import httpx
import msgspec
import pytest
import redis
from websockets.exceptions import InvalidStatus
from websockets.sync.client import ClientConnection, connect

from services.config import Limits
from services.gateway.context import Gateway
from services.gateway.server import uvicorn_options
from services.players.settings import PlayerSettings
from tests.support.client import create
from tests.support.harness import ServerThread
from tests.support.pipeline import services_for

BURST = 3
NO_REFILL = 0.001
"""A rate so slow that a bucket holds its burst alone for the test's length: no timing in the assertions."""


def limits(**changes: Any) -> Limits:
    """No limits but the ones named (each a bucket of ``BURST`` that does not refill within the test)."""
    off = Limits(sockets_per_address=0, commands_per_token=0, commands_per_address=0, frames_per_socket=0,
                 socket_opens_per_address=0, reads_per_address=0, burst=BURST / NO_REFILL)  # fmt: skip
    return msgspec.structs.replace(off, **changes)


@contextmanager
def gateway(url: str, limited: Limits, players: PlayerSettings | None = None) -> Iterator[ServerThread]:
    services = services_for(url)
    if players is not None:
        services.settings = msgspec.structs.replace(services.settings, players=players)
    server = ServerThread(services, url, limits=limited)
    server.start()
    try:
        yield server
    finally:
        server.stop()


def client_at(server: ServerThread, address: str) -> httpx.Client:
    transport = httpx.HTTPTransport(local_address=address)
    return httpx.Client(base_url=server.base, timeout=30, transport=transport)


def socket_at(server: ServerThread, address: str, path: str) -> ClientConnection:
    """A game WebSocket whose connection comes from ``address``."""
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=10, source_address=(address, 0))
    return connect(f"{server.ws_base}{path}", sock=sock, open_timeout=10)


def test_an_address_opening_sockets_too_fast_is_refused_before_the_handshake(
    redis_url: str, redis_client: redis.Redis
) -> None:
    with gateway(redis_url, limits(socket_opens_per_address=NO_REFILL)) as server:
        with client_at(server, "127.0.0.9") as api:
            path = f"/ws/games/{create(api, 'race', 2)['game_id']}"
        with ExitStack() as held:
            opened = [held.enter_context(socket_at(server, "127.0.0.5", path)) for _ in range(BURST)]
            assert all(json.loads(ws.recv(timeout=10))["type"] == "hello" for ws in opened)
            with pytest.raises(InvalidStatus) as refused:  # the flood: one more from the same address
                socket_at(server, "127.0.0.5", path)
            assert refused.value.response.status_code == 429
            assert int(refused.value.response.headers["Retry-After"]) >= 1
            assert json.loads(refused.value.response.body)["error"] == "rate_limited"
            with socket_at(server, "127.0.0.6", path) as other:  # another address opens as before
                assert json.loads(other.recv(timeout=10))["type"] == "hello"
        state: Gateway = server.app.state.gateway
        assert state.stats.ws_refused[4429] == 1


def test_api_reads_are_limited_per_address_whatever_the_client_sends(
    redis_url: str, redis_client: redis.Redis
) -> None:
    with gateway(redis_url, limits(reads_per_address=NO_REFILL)) as server:
        with client_at(server, "127.0.0.5") as reader:
            assert [reader.get("/api/games").status_code for _ in range(BURST)] == [200] * BURST
            refused = reader.get("/api/games")
            assert refused.status_code == 429 and refused.json()["error"] == "rate_limited"
            assert int(refused.headers["Retry-After"]) >= 1
            assert refused.headers["X-Frame-Options"]  # refused inside the security headers
            forged = reader.get(
                "/api/games", headers={"Cookie": "hm_session=anything", "Authorization": "Bearer x"}
            )
            assert forged.status_code == 429  # a cookie or token, unchecked, buys nothing
            assert reader.get("/").status_code == 200  # pages are not API reads
            made = reader.post("/api/games", json={"game": "race", "seats": 2})
            assert made.status_code == 201  # writes have limits of their own
        with client_at(server, "127.0.0.6") as other:
            assert other.get("/api/games").status_code == 200


SIGN_INS = PlayerSettings(signin_per_name=0, signin_per_address=BURST, signin_failures_per_name=0)


def forged_sign_ins(client: httpx.Client, count: int) -> list[int]:
    """Sign-ins with a different forged ``X-Forwarded-For`` each."""
    return [
        client.post(
            "/api/session",
            json={"name": f"someone{n}", "password": "not the password"},
            headers={"X-Forwarded-For": f"203.0.113.{n}"},
        ).status_code
        for n in range(count)
    ]


def test_a_forged_forwarded_address_is_not_believed_by_default(
    redis_url: str, redis_client: redis.Redis
) -> None:
    assert uvicorn_options(Limits(), compression=False)["proxy_headers"] is False
    with gateway(redis_url, limits(), SIGN_INS) as server, client_at(server, "127.0.0.1") as client:
        statuses = forged_sign_ins(client, BURST + 2)  # from the gateway's own machine, as in the attack
    assert statuses == [401] * BURST + [429, 429]


def test_a_trusted_proxys_forwarded_address_is_believed_and_no_one_elses(
    redis_url: str, redis_client: redis.Redis
) -> None:
    trusting = limits(trusted_proxies=("127.0.0.1",))
    with gateway(redis_url, trusting, SIGN_INS) as server:
        with client_at(server, "127.0.0.1") as proxy:  # each forwarded client has a window of its own
            assert forged_sign_ins(proxy, BURST + 2) == [401] * (BURST + 2)
        with client_at(server, "127.0.0.7") as stranger:  # not a proxy: its header names nobody
            assert forged_sign_ins(stranger, BURST + 1) == [401] * BURST + [429]
