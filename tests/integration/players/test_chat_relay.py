"""Chat reaches the sockets of every gateway on the same Redis: a message posted on one gateway is pushed
by the other's relay to the spectators it holds."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
import redis

from tests.support.client import Recorder, bearer, create, wait_until
from tests.support.harness import ServerThread
from tests.support.pipeline import services_for
from tests.support.players_stack import rated_stack


@pytest.fixture
def two_gateways(redis_url: str, redis_client: redis.Redis) -> Iterator[tuple[ServerThread, ServerThread]]:
    with rated_stack(redis_url) as first:
        second = ServerThread(services_for(redis_url), redis_url)
        second.start()
        try:
            yield first, second
        finally:
            second.stop()


def test_a_message_posted_on_one_gateway_reaches_the_sockets_of_another(
    two_gateways: tuple[ServerThread, ServerThread],
) -> None:
    first, second = two_gateways
    with httpx.Client(base_url=first.base, timeout=30) as api:
        game = create(api, "race", 2)
    game_id, token = game["game_id"], game["seats"][0]["token"]
    there, here = (
        Recorder(f"{second.ws_base}/ws/games/{game_id}"),
        Recorder(f"{first.ws_base}/ws/games/{game_id}"),
    )
    wait_until(lambda: there.frames and here.frames)  # both sockets have their hello
    said = httpx.post(
        f"{first.base}/api/games/{game_id}/chat", json={"text": "across"}, headers=bearer(token)
    )
    assert said.status_code == 201
    for recorder in (there, here):
        wait_until(lambda r=recorder: [f["text"] for f in r.frames if f["type"] == "chat"] == ["across"])
        recorder.close()
