"""Resting feeds: a gateway stops reading the games nobody uses, and catches one up when it is used again.

Two gateways on one Redis: the one under test lets its feed rest while the other plays moves, so the
moves are appended while nobody reads them for the first."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from websockets.sync.client import connect

from services.gateway import hub
from services.gateway.context import Gateway
from tests.gateway.client import create, post_command
from tests.gateway.harness import ServerThread, running_stack
from tests.support.pipeline import services_for

pytestmark = pytest.mark.redis


def _wait_until(check: Any, timeout: float = 15) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


@pytest.fixture
def two_gateways(
    redis_url: str, redis_client: Any, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[ServerThread, ServerThread]]:
    """The gateway under test (with the fold worker), whose unused feeds rest within a tenth of a second,
    and a second gateway to play through."""
    monkeypatch.setattr(hub, "REST_SECONDS", 0.05)
    monkeypatch.setattr(hub, "SWEEP_SECONDS", 0.05)
    with running_stack(redis_url) as resting:
        other = ServerThread(services_for(redis_url), redis_url)
        other.start()
        try:
            yield resting, other
        finally:
            other.stop()


def _gateway(server: ServerThread) -> Gateway:
    state: Gateway = server.app.state.gateway
    return state


def _move(api: httpx.Client, game: dict[str, Any], move: int) -> None:
    seat = game["seats"][move % 2]
    reply = post_command(
        api, game["game_id"], seat["token"], {"command": {"type": "Move"}, "command_id": f"m{move}"}
    )
    assert reply.json()["status"] == "applied", reply.text


def test_a_resting_feed_is_caught_up_before_it_answers(
    two_gateways: tuple[ServerThread, ServerThread],
) -> None:
    resting, other = two_gateways
    with (
        httpx.Client(base_url=resting.base, timeout=30) as api,
        httpx.Client(base_url=other.base, timeout=30) as via,
    ):
        game = create(api, "counter", 2, options={"limit": 100})
        gid = game["game_id"]
        assert api.get(f"/api/games/{gid}").json()["view"]["count"] == 0
        _wait_until(lambda: _gateway(resting).hub.feeds[gid].resting)
        for move in range(5):
            _move(via, game, move)
        feed = _gateway(resting).hub.feeds[gid]
        # the read in flight when it came to rest may still bring the first move; no read after it does
        assert feed.resting and feed.seq <= 2, "a resting feed is not read"
        state = api.get(f"/api/games/{gid}").json()
        assert (state["seq"], state["view"]["count"]) == (6, 5)
        events = api.get(f"/api/games/{gid}/events").json()["events"]
        assert [e["seq"] for e in events] == [1, 2, 3, 4, 5, 6]


def test_a_socket_on_a_resting_feed_misses_nothing_and_follows_live(
    two_gateways: tuple[ServerThread, ServerThread],
) -> None:
    resting, other = two_gateways
    with (
        httpx.Client(base_url=resting.base, timeout=30) as api,
        httpx.Client(base_url=other.base, timeout=30) as via,
    ):
        game = create(api, "counter", 2, options={"limit": 100})
        gid = game["game_id"]
        api.get(f"/api/games/{gid}")
        _wait_until(lambda: _gateway(resting).hub.feeds[gid].resting)
        for move in range(3):
            _move(via, game, move)
        with connect(f"{resting.ws_base}/ws/games/{gid}?from=1", open_timeout=10) as socket:
            frames = [json.loads(socket.recv(timeout=10)) for _ in range(4)]
            assert frames[0]["type"] == "hello"
            assert [f["seq"] for f in frames[1:]] == [2, 3, 4]
            time.sleep(0.3)  # several sweeps: a watched feed never rests
            assert not _gateway(resting).hub.feeds[gid].resting
            _move(via, game, 3)
            live = json.loads(socket.recv(timeout=10))
            assert (live["type"], live["seq"], live["view"]["count"]) == ("event", 5, 4)
