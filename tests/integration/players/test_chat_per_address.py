"""Issue 43, finding 13: chat had no limit per address. With no account, one address made 200 five-seat
games and posted 326 lines a second from their seat tokens (each author under its own per-author limit),
and Redis grew 148 KB a second. Now every message from one address draws on one bucket as well."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
import redis

from events import keys
from services.players.settings import PlayerSettings
from tests.support.client import bearer, create
from tests.support.harness import ServerThread
from tests.support.players_stack import rated_stack

BURST = 4
"""Messages one address may post at once: 0.01 a second, 400 seconds' worth. At that rate the bucket
gains one message in 100 seconds, so a flood that takes less than that gets at most ``BURST + 1``."""


@pytest.fixture
def stack(redis_url: str, redis_client: redis.Redis) -> Iterator[ServerThread]:
    players = PlayerSettings(chat_per_second=1.0, chat_per_address=0.01, chat_burst_seconds=400.0)
    with rated_stack(redis_url, players=players) as server:
        yield server


def test_one_address_posting_from_many_seat_tokens_is_refused_past_its_allowance(
    stack: ServerThread, redis_client: redis.Redis
) -> None:
    with httpx.Client(base_url=stack.base, timeout=30) as api:
        games = [create(api, "race", 4) for _ in range(5)]
        tokens = [(g["game_id"], seat["token"]) for g in games for seat in g["seats"]]
        answers = [
            api.post(f"/api/games/{game_id}/chat", json={"text": f"spam {i}"}, headers=bearer(token))
            for i, (game_id, token) in enumerate(tokens)  # 20 authors, each posting once: no author's limit
        ]
    statuses = [a.status_code for a in answers]
    assert statuses[:BURST] == [201] * BURST
    refused = [a for a in answers if a.status_code == 429]
    assert len(refused) >= len(answers) - BURST - 1, statuses
    assert set(statuses) == {201, 429}
    assert all(
        "from this address" in a.json()["message"] and int(a.headers["Retry-After"]) >= 1 for a in refused
    )
    kept = sum(redis_client.xlen(keys.chat(g["game_id"])) for g in games)
    assert kept == statuses.count(201)  # a refused line is not written
