"""Issue 43, finding 13, behind several gateways: the chat limit per address was kept in each gateway's
memory, so an address spreading its flood over N gateways got N allowances. It is one bucket in Redis now
(``services/gateway/access/shared_buckets.py``): the flood is made through two gateways on one Redis."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import msgspec
import pytest
import redis

from events import keys
from services.players.settings import PlayerSettings
from tests.support.client import bearer, create
from tests.support.harness import ServerThread
from tests.support.pipeline import services_for
from tests.support.players_stack import rated_stack

PLAYERS = PlayerSettings(chat_per_second=1.0, chat_per_address=0.01, chat_burst_seconds=400.0)
BURST = 4
"""0.01 messages a second, 400 seconds' worth: one more message in 100 s, so a flood quicker than that gets
at most ``BURST + 1`` in all, through however many gateways."""


@pytest.fixture
def gateways(redis_url: str, redis_client: redis.Redis) -> Iterator[tuple[ServerThread, ServerThread]]:
    with rated_stack(redis_url, players=PLAYERS) as first:
        services = services_for(redis_url)
        services.settings = msgspec.structs.replace(services.settings, players=PLAYERS)
        second = ServerThread(services, redis_url)
        second.start()
        try:
            yield first, second
        finally:
            second.stop()


def test_an_address_flooding_chat_through_two_gateways_gets_one_allowance(
    gateways: tuple[ServerThread, ServerThread], redis_client: redis.Redis
) -> None:
    first, second = gateways
    with httpx.Client(base_url=first.base, timeout=30) as api:
        games = [create(api, "race", 4) for _ in range(5)]
    tokens = [(g["game_id"], seat["token"]) for g in games for seat in g["seats"]]
    statuses = []
    with httpx.Client(timeout=30) as api:
        for i, (game_id, token) in enumerate(tokens):  # 20 authors, each once, every other through each
            base = (first, second)[i % 2].base
            answer = api.post(
                f"{base}/api/games/{game_id}/chat", json={"text": f"spam {i}"}, headers=bearer(token)
            )
            statuses.append(answer.status_code)
            if answer.status_code == 429:
                assert (
                    "from this address" in answer.json()["message"]
                    and int(answer.headers["Retry-After"]) >= 1
                )
    assert statuses[:BURST] == [201] * BURST
    assert statuses.count(201) <= BURST + 1, statuses  # in each gateway's memory: 2 x BURST
    assert set(statuses) == {201, 429}
    kept = sum(redis_client.xlen(keys.chat(g["game_id"])) for g in games)
    assert kept == statuses.count(201)
    bucket = keys.address_bucket("chat", "127.0.0.1")
    assert 0 < redis_client.pttl(bucket) <= (BURST + 1) * 100_000 + 1000  # kept only until full again
