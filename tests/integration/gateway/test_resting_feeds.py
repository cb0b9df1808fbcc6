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

from services.gateway.context import Gateway
from services.gateway.feeds import hub
from tests.support.client import create, post_command, wait_until
from tests.support.harness import ServerThread, running_stack
from tests.support.pipeline import services_for


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


def _rested_then_played(gateways: tuple[ServerThread, ServerThread], moves: int) -> dict[str, Any]:
    """A counter game, read once by the gateway under test, which lets its feed rest; then ``moves`` moves
    played through the other gateway."""
    resting, other = gateways
    with httpx.Client(base_url=resting.base, timeout=30) as api:
        game = create(api, "counter", 2, options={"limit": 100})
        assert api.get(f"/api/games/{game['game_id']}").json()["view"]["count"] == 0
    wait_until(lambda: _gateway(resting).hub.feeds[game["game_id"]].resting)
    with httpx.Client(base_url=other.base, timeout=30) as via:
        for move in range(moves):
            _move(via, game, move)
    return game


def test_a_resting_feed_is_caught_up_before_it_answers(
    two_gateways: tuple[ServerThread, ServerThread],
) -> None:
    game = _rested_then_played(two_gateways, 5)
    gid, resting = game["game_id"], two_gateways[0]
    feed = _gateway(resting).hub.feeds[gid]
    # the read in flight when it came to rest may still bring the first move; no read after it does
    assert feed.resting and feed.seq <= 2, "a resting feed is not read"
    with httpx.Client(base_url=resting.base, timeout=30) as api:
        state = api.get(f"/api/games/{gid}").json()
        assert (state["seq"], state["view"]["count"]) == (6, 5)
        events = api.get(f"/api/games/{gid}/events").json()["events"]
        assert [e["seq"] for e in events] == [1, 2, 3, 4, 5, 6]


def test_a_socket_on_a_resting_feed_misses_nothing_and_follows_live(
    two_gateways: tuple[ServerThread, ServerThread],
) -> None:
    game = _rested_then_played(two_gateways, 3)
    gid, (resting, other) = game["game_id"], two_gateways
    with connect(f"{resting.ws_base}/ws/games/{gid}?from=1", open_timeout=10) as socket:
        frames = [json.loads(socket.recv(timeout=10)) for _ in range(4)]
        assert frames[0]["type"] == "hello"
        assert [f["seq"] for f in frames[1:]] == [2, 3, 4]
        time.sleep(0.3)  # several sweeps: a watched feed never rests
        assert not _gateway(resting).hub.feeds[gid].resting
        with httpx.Client(base_url=other.base, timeout=30) as via:
            _move(via, game, 3)
        live = json.loads(socket.recv(timeout=10))
        assert (live["type"], live["seq"], live["view"]["count"]) == ("event", 5, 4)
