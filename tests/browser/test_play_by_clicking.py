"""A person plays a whole game against bots by clicking the board (the bots move in between)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import redis

from tests.browser.play import play_to_the_end
from tests.gateway.client import create
from tests.gateway.harness import ServerThread, running_stack

pytestmark = [pytest.mark.browser, pytest.mark.redis]


@pytest.fixture
def quick_stack(redis_url: str, redis_client: redis.Redis) -> Iterator[ServerThread]:
    """Bots that move at once: a whole game is mostly the person's clicks."""
    with running_stack(redis_url, bot_delay_s=0.0) as server:
        yield server


def test_a_person_plays_a_whole_game_of_manila_by_clicking_the_board(
    page: Any, quick_stack: ServerThread
) -> None:
    with httpx.Client(base_url=quick_stack.base, timeout=30) as api:
        game = create(api, "manila", 3, names=["Anna", "Bruno", "Carla"], bots={"1": "greedy", "2": "random"})
        page.goto(f"{quick_stack.base}/games/{game['game_id']}#token={game['seats'][0]['token']}")
        page.locator("#board svg.board-manila").wait_for()
        clicks = play_to_the_end(page, seed=7)
        state = api.get(f"/api/games/{game['game_id']}").json()
        events = api.get(f"/api/games/{game['game_id']}/events", params={"limit": 5000}).json()["events"]
    mine = {e["command_id"] for e in events if e["seat"] == 0}
    assert mine and all(c.startswith("web-") for c in mine)  # sent as command frames on the WebSocket
    assert state["status"] == "finished"
    # every placement and boat move is a click on the board; only bids, passes and confirms are not
    assert clicks.board >= 5 and clicks.kinds
    page.locator("#outcome").wait_for()
    assert "Anna" in page.locator("#final-table").inner_text()
