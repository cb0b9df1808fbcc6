"""Named regressions of issue 17 (findings 4, 5, 7, 10, 11): each hostile or unlucky request gets a clear
4xx/503 or close code, never a 500 or a dropped socket, and changes nothing."""

from __future__ import annotations

import json
import logging
import socket
import time
from typing import Any

import httpx
import pytest
import redis
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from events import keys
from services.config import Limits
from services.gateway.context import Gateway
from services.gateway.wire.close_codes import MAX_CLOSE_REASON
from services.redis_launcher import EmbeddedRedis
from tests.support.client import Recorder, bearer, create, post_command, wait_until
from tests.support.harness import ServerThread, running_stack
from tests.support.pipeline import services_for

NESTED = "[" * 1000 + "]" * 1000
"""About 2 KB that made msgspec raise RecursionError (a 500) before depth was bounded."""


def refused_on_open(url: str) -> tuple[int | None, str]:
    """Open a WebSocket and read until it is closed; the close code and reason the gateway sent."""
    with connect(url, max_size=None, open_timeout=10) as ws:
        try:
            while True:
                ws.recv(timeout=10)
        except ConnectionClosed as exc:
            return (exc.rcvd.code, exc.rcvd.reason) if exc.rcvd else (None, "")
    raise AssertionError("unreachable")


def gateway(server: ServerThread) -> Gateway:
    state: Gateway = server.app.state.gateway
    return state


def log_of(redis_client: redis.Redis, game_id: str) -> tuple[int, int]:
    """Events and recorded command results of a game: what a refused request must not change."""
    return redis_client.xlen(keys.events(game_id)), redis_client.hlen(keys.results(game_id))


def race(api: httpx.Client) -> tuple[str, str]:
    game = create(api, "race", 2)
    return game["game_id"], game["seats"][0]["token"]


# --- finding 4: Redis down ------------------------------------------------------------------------------


def test_redis_down_answers_503_json_with_retry_after_then_recovers(own_redis: EmbeddedRedis) -> None:
    server = ServerThread(services_for(own_redis.url), own_redis.url)
    server.start()
    try:
        with httpx.Client(base_url=server.base, timeout=30) as api:
            gid, token = race(api)
            own_redis.stop()
            calls = [
                api.get("/api/games"),
                api.post("/api/games", json={"game": "race", "seats": 2}),
                api.get(f"/api/games/{gid}/commands/c1"),
                post_command(api, gid, token, {"command": {"type": "Note", "text": "x"}}),
                api.get(f"/api/games/{gid}/legal", headers=bearer(token)),
            ]
            for response in calls:
                assert response.status_code == 503, (response.request.url, response.text)
                assert response.json()["error"] == "unavailable"
                assert int(response.headers["retry-after"]) >= 1
            assert api.get("/healthz").status_code == 503
            code, _ = refused_on_open(f"{server.ws_base}/ws/games/not-loaded-yet")
            assert code == 1013
            own_redis.start()
            wait_until(lambda: api.get("/api/games").status_code == 200)
            assert gid in [g["game_id"] for g in api.get("/api/games").json()["games"]]
    finally:
        server.stop()


def test_redis_down_refuses_a_websocket_command_with_unavailable(own_redis: EmbeddedRedis) -> None:
    def command(command_id: str) -> str:
        return json.dumps(
            {"type": "command", "command_id": command_id, "command": {"type": "Note", "text": "x"}}
        )

    def result(socket: Any) -> tuple[str, str, str | None]:
        while (frame := json.loads(socket.recv(timeout=30)))["type"] != "result":
            pass
        return frame["command_id"], frame["status"], frame.get("code")

    server = ServerThread(services_for(own_redis.url), own_redis.url)
    server.start()
    try:
        with httpx.Client(base_url=server.base, timeout=30) as api:
            gid, token = race(api)
            with connect(f"{server.ws_base}/ws/games/{gid}?token={token}", open_timeout=10) as socket:
                assert json.loads(socket.recv(timeout=10))["type"] == "hello"
                before = log_of(redis.Redis.from_url(own_redis.url), gid)
                own_redis.stop()
                socket.send(command("c1"))
                assert result(socket) == ("c1", "rejected", "unavailable")
                own_redis.start()
                wait_until(lambda: api.get("/api/games").status_code == 200)
                socket.send(json.dumps({"type": "ping"}))  # the socket outlived the outage
                while json.loads(socket.recv(timeout=30))["type"] != "pong":
                    pass
            assert log_of(redis.Redis.from_url(own_redis.url), gid) == before, "c1 changed nothing"
    finally:
        server.stop()


# --- finding 5: deep nesting ----------------------------------------------------------------------------


def test_deeply_nested_json_is_refused_with_400_and_changes_nothing(
    api: httpx.Client, redis_client: redis.Redis
) -> None:
    gid, token = race(api)
    before = log_of(redis_client, gid)
    games = redis_client.zcard(keys.GAMES_INDEX)
    bodies = [
        f'{{"game": "race", "seats": 2, "options": {{"goal": {NESTED}}}}}',
        f'{{"game": {NESTED}}}',
    ]
    for body in bodies:
        response = api.post("/api/games", content=body, headers={"Content-Type": "application/json"})
        assert response.status_code == 400 and response.json()["error"] == "too_deep", response.text
    for body in [f'{{"command": {NESTED}}}', f'{{"command": {{"type": "Note", "text": {NESTED}}}}}']:
        response = post_command(api, gid, token, body.encode())
        assert response.status_code == 400 and response.json()["error"] == "too_deep", response.text
    assert redis_client.zcard(keys.GAMES_INDEX) == games
    assert log_of(redis_client, gid) == before


def test_deeply_nested_websocket_frame_closes_1007(stack: ServerThread, api: httpx.Client) -> None:
    gid, _ = race(api)
    recorder = Recorder(f"{stack.ws_base}/ws/games/{gid}")
    wait_until(lambda: recorder.raw)
    recorder.send(NESTED)
    assert recorder.done.wait(10)
    assert recorder.close_code == 1007 and "nested" in recorder.close_reason


# --- finding 7: WebSocket refusals ----------------------------------------------------------------------


@pytest.mark.parametrize("value", ["%C2%B2", "%D9%A3", "1_0", "-1", "1e3", "", "9" * 40])
def test_a_from_that_is_not_a_plain_number_closes_4400(
    stack: ServerThread, api: httpx.Client, value: str
) -> None:
    gid, _ = race(api)
    code, reason = refused_on_open(f"{stack.ws_base}/ws/games/{gid}?from={value}")
    assert code == 4400, (value, reason)


@pytest.mark.parametrize("game_id", ["g" * 115, "g" * 4000, "é" * 200, "%F0%9F%9A%A2" * 60])
def test_a_long_unknown_game_id_closes_4404_with_a_reason_of_at_most_123_bytes(
    stack: ServerThread, game_id: str
) -> None:
    code, reason = refused_on_open(f"{stack.ws_base}/ws/games/{game_id}")
    assert code == 4404
    assert 0 < len(reason.encode()) <= MAX_CLOSE_REASON and reason.startswith("no game")


# --- finding 10: limits per client ----------------------------------------------------------------------

SLOW = 0.001
"""A refill rate (tokens a second) so slow that no token comes back during a test: no timing involved."""


def test_a_seat_token_over_its_rate_gets_429_with_retry_after(
    redis_url: str, redis_client: redis.Redis
) -> None:
    limits = Limits(sockets_per_address=0, commands_per_token=SLOW, commands_per_address=0, burst=2 / SLOW)
    with running_stack(redis_url, limits=limits) as server, httpx.Client(base_url=server.base) as api:
        game = create(api, "race", 2)
        gid, seat0, seat1 = game["game_id"], game["seats"][0]["token"], game["seats"][1]["token"]
        note = {"command": {"type": "Note", "text": "x"}}
        assert [post_command(api, gid, seat0, note).status_code for _ in range(2)] == [200, 200]
        before = log_of(redis_client, gid)
        refused = post_command(api, gid, seat0, note)
        assert refused.status_code == 429 and refused.json()["error"] == "rate_limited"
        assert int(refused.headers["retry-after"]) >= 1
        assert log_of(redis_client, gid) == before
        assert post_command(api, gid, seat1, note).status_code == 200  # another seat has its own bucket


def test_a_websocket_command_over_the_token_rate_is_answered_rejected_rate_limited(
    redis_url: str, redis_client: redis.Redis
) -> None:
    limits = Limits(sockets_per_address=0, commands_per_token=SLOW, commands_per_address=0, burst=2 / SLOW)
    with running_stack(redis_url, limits=limits) as server, httpx.Client(base_url=server.base) as api:
        gid, token = race(api)
        with connect(f"{server.ws_base}/ws/games/{gid}?token={token}", open_timeout=10) as ws:
            results = []
            for i in range(3):
                ws.send(
                    json.dumps(
                        {"type": "command", "command": {"type": "Note", "text": "x"}, "command_id": f"n{i}"}
                    )
                )
                while (frame := json.loads(ws.recv(timeout=10)))["type"] != "result":
                    pass
                results.append(frame)
        assert [r["status"] for r in results] == ["applied", "applied", "rejected"]
        assert results[2]["code"] == "rate_limited" and results[2]["command_id"] == "n2"
        assert redis_client.xlen(keys.events(gid)) == 3  # set-up and the two notes, not the third


def test_an_address_over_its_rate_gets_429_whatever_token_it_uses(
    redis_url: str, redis_client: redis.Redis
) -> None:
    limits = Limits(sockets_per_address=0, commands_per_token=0, commands_per_address=SLOW, burst=4 / SLOW)
    with running_stack(redis_url, limits=limits) as server, httpx.Client(base_url=server.base) as api:
        game = create(api, "race", 2)  # one
        gid, tokens = game["game_id"], [s["token"] for s in game["seats"]]
        note = {"command": {"type": "Note", "text": "x"}}
        assert [post_command(api, gid, t, note).status_code for t in tokens * 2][:3] == [200, 200, 200]
        assert post_command(api, gid, tokens[1], note).status_code == 429
        refused = api.post("/api/games", json={"game": "race", "seats": 2})
        assert refused.status_code == 429 and "retry-after" in refused.headers
        assert gateway(server).limits.refused >= 2


def test_an_address_over_its_socket_cap_is_closed_4429_until_one_goes(
    redis_url: str, redis_client: redis.Redis
) -> None:
    limits = Limits(sockets_per_address=3, commands_per_token=0, commands_per_address=0)
    with running_stack(redis_url, limits=limits) as server, httpx.Client(base_url=server.base) as api:
        gid, _ = race(api)
        url = f"{server.ws_base}/ws/games/{gid}"
        held = [Recorder(url) for _ in range(3)]
        wait_until(lambda: all(r.raw for r in held))
        code, reason = refused_on_open(url)
        assert code == 4429 and "address" in reason
        held.pop().close()
        wait_until(lambda: gateway(server).limits.sockets.open.get("127.0.0.1") == 2)
        again = Recorder(url)
        wait_until(lambda: again.raw)
        assert json.loads(again.raw[0])["type"] == "hello"
        for recorder in [*held, again]:
            recorder.close()


# --- finding 11: the smaller ones -----------------------------------------------------------------------


def test_unknown_fields_inside_a_command_are_refused_with_422(
    api: httpx.Client, redis_client: redis.Redis
) -> None:
    gid, token = race(api)
    before = log_of(redis_client, gid)
    for command in [{"type": "Note", "text": "x", "txet": "y"}, {"type": "Roll", "dice": 2}]:
        response = post_command(api, gid, token, {"command": command})
        assert response.status_code == 422, response.text
        assert "unknown field" in response.json()["message"]
    assert log_of(redis_client, gid) == before
    assert post_command(api, gid, token, {"command": {"type": "Note", "text": "x"}}).status_code == 200


def test_unknown_fields_nested_in_a_command_are_refused(api: httpx.Client) -> None:
    game = create(api, "manila", 3)
    command = {"type": "MoveBoats", "moves": [{"good": "jade", "steps": 1, "stesp": 2}]}
    response = post_command(api, game["game_id"], game["seats"][0]["token"], {"command": command})
    assert response.status_code == 422 and "moves[0].stesp" in response.json()["message"]


def test_405_names_the_allowed_methods(api: httpx.Client) -> None:
    response = api.delete("/api/games")
    assert response.status_code == 405 and response.json()["error"] == "method_not_allowed"
    assert set(response.headers["allow"].split(", ")) == {"GET", "HEAD", "POST"}
    response = api.put("/api/games/x/commands")
    assert response.status_code == 405 and response.headers["allow"] == "POST"


def test_watch_url_never_echoes_the_host_header(api: httpx.Client) -> None:
    response = api.post("/api/games", json={"game": "race", "seats": 2}, headers={"Host": "evil.example"})
    body = response.json()
    assert body["watch_url"] == f"/games/{body['game_id']}"


def test_watch_url_uses_the_configured_public_url(redis_url: str, redis_client: redis.Redis) -> None:
    public = {"public_url": "https://play.example"}
    with running_stack(redis_url, settings=public) as server, httpx.Client(base_url=server.base) as api:
        body = api.post("/api/games", json={"game": "race", "seats": 2}, headers={"Host": "x.example"}).json()
        assert body["watch_url"] == f"https://play.example/games/{body['game_id']}"


class Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


def test_a_client_gone_mid_body_is_one_quiet_line_not_a_traceback(stack: ServerThread) -> None:
    uvicorn_errors = Records()
    logging.getLogger("uvicorn.error").addHandler(uvicorn_errors)
    try:
        with socket.create_connection(("127.0.0.1", stack.port)) as raw:
            head = "POST /api/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            raw.sendall(f'{head}Content-Length: 1000\r\n\r\n{{"game":'.encode())
            time.sleep(0.2)  # let the gateway start reading the body before the client goes
        wait_until(lambda: gateway(stack).stats.client_disconnects == 1)
    finally:
        logging.getLogger("uvicorn.error").removeHandler(uvicorn_errors)
    assert not [r for r in uvicorn_errors.records if r.levelno >= logging.ERROR]


def test_a_spectator_that_never_reads_is_dropped_after_the_stall_limit(
    redis_url: str, redis_client: redis.Redis
) -> None:
    limits = Limits(sockets_per_address=0, commands_per_token=0, commands_per_address=0, stall_seconds=1)
    with running_stack(redis_url, limits=limits) as server, httpx.Client(base_url=server.base) as api:
        gid, token = race(api)
        with socket.socket() as stalled:
            stalled.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            stalled.connect(("127.0.0.1", server.port))
            stalled.sendall(
                f"GET /ws/games/{gid} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n".encode()
            )  # fmt: skip
            wait_until(lambda: gateway(server).open_websockets == 1)
            # The kernel would buffer megabytes for a client that does not read; shrink the gateway side's
            # send buffer so that its writes block after a few kilobytes, as they would over a real network.
            for connection in server.server.server_state.connections:
                raw = connection.transport.get_extra_info("socket")
                raw.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
            note = {"command": {"type": "Note", "text": "x" * 100}}
            sent = 0
            while gateway(server).stats.ws_stalled == 0:
                assert sent < 3000, "the stalled socket was never dropped"
                post_command(api, gid, token, note, wait=False)
                sent += 1
            wait_until(lambda: gateway(server).open_websockets == 0)
            print(f"\nstalled socket dropped after {sent} commands")
