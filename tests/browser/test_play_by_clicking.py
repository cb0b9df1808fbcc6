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


def play_as_anna(
    kind: str, page: Any, stack: ServerThread, until: str = "false"
) -> tuple[dict[str, Any], Any]:
    """Anna against a greedy and a random bot, clicking; returns the game's state and her clicks."""
    with httpx.Client(base_url=stack.base, timeout=30) as api:
        game = create(api, kind, 3, names=["Anna", "Bruno", "Carla"], bots={"1": "greedy", "2": "random"})
        page.goto(f"{stack.base}/games/{game['game_id']}#token={game['seats'][0]['token']}")
        page.locator(f"#board svg.board-{kind}").wait_for()
        clicks = play_to_the_end(page, seed=7, until=until)
        state = api.get(f"/api/games/{game['game_id']}").json()
        events = api.get(f"/api/games/{game['game_id']}/events", params={"limit": 5000}).json()["events"]
    mine = {e["command_id"] for e in events if e["seat"] == 0}
    assert mine and all(c.startswith("web-") for c in mine)  # sent as command frames on the WebSocket
    # places, cards, sites and boat moves are clicks on the board; bids, passes and confirms are not
    assert clicks.board >= 5 and clicks.kinds
    return state, clicks


def test_a_person_plays_a_whole_game_of_manila_by_clicking_the_board(
    page: Any, quick_stack: ServerThread
) -> None:
    state, clicks = play_as_anna("manila", page, quick_stack)
    assert state["status"] == "finished"
    assert {"boat", "field"} & clicks.kinds
    page.locator("#outcome").wait_for()
    assert "Anna" in page.locator("#final-table").inner_text()


def test_a_person_plays_el_capitan_to_the_first_payday_by_clicking_the_board(
    page: Any, quick_stack: ServerThread
) -> None:
    """A whole game takes three minutes of clicks; the first of its three phases shows every kind of
    decision (buying, sailing, building, loans) and keeps the suite lean."""
    state, clicks = play_as_anna(
        "elcapitan",
        page,
        quick_stack,
        until="document.getElementById('log').innerText.includes('Payday of phase 1')",
    )
    assert {"buy", "city", "site", "bank"} & clicks.kinds
    assert "Payday of phase 1" in page.locator("#log").inner_text()
    assert state["view"]["phase"] >= 1


def test_a_person_plays_east_india_companies_through_the_first_epoch_by_clicking_the_board(
    page: Any, quick_stack: ServerThread
) -> None:
    state, clicks = play_as_anna(
        "eic", page, quick_stack, until="document.getElementById('log').innerText.includes('Epoch 1 ends')"
    )
    assert {"space", "zone", "ship", "company"} & clicks.kinds
    assert state["view"]["epoch"] >= 1
