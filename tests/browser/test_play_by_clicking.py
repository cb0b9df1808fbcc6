"""A person plays a whole game against bots by clicking the board (the bots move in between)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import redis

from tests.browser.play import play_to_the_end
from tests.support.client import create
from tests.support.harness import ServerThread, running_stack


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
    assert mine and all(c.startswith("web-") for c in mine)  # each sent by the page, with its own id
    # as command frames on the WebSocket; over HTTP only while the socket was reopening (under load)
    over_http = {c for c in mine if c.startswith("web-http-")}
    assert len(over_http) * 4 < len(mine), over_http
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
    for score, parts in final_table(page):  # cash, shares at the market's price, unpaid loans
        assert sum(parts) == score, (score, parts)


def test_a_person_plays_a_whole_game_of_el_capitan_by_clicking_the_board(
    page: Any, quick_stack: ServerThread
) -> None:
    """All three phases and paydays, ending with the final table."""
    state, clicks = play_as_anna("elcapitan", page, quick_stack)
    assert state["status"] == "finished"
    assert {"buy", "city"} <= clicks.kinds
    # she builds (random clicks chose no warehouse site in about one game in ten: a fortress then)
    assert {"site", "fortress"} & clicks.kinds, clicks.kinds
    assert "Payday of phase 3" in page.locator("#log").inner_text()
    page.locator("#outcome").wait_for()
    assert "Anna" in page.locator("#final-table").inner_text()


def final_table(page: Any) -> list[tuple[int, list[int]]]:
    """Each row of the final table: its score and the numbers of its breakdown ("treasury 12")."""
    rows = page.locator("#final-table tr[data-seat]")
    table = []
    for i in range(rows.count()):
        row = rows.nth(i)
        parts = [int(text.rsplit(" ", 1)[1]) for text in row.locator(".parts span").all_inner_texts()]
        table.append((int(row.locator(".score > b").inner_text()), parts))
    return table


def test_a_person_plays_a_whole_game_of_east_india_companies_by_clicking_the_board(
    page: Any, quick_stack: ServerThread
) -> None:
    """Five epochs, amounts with the − / + control, ending with the final table counted as the
    rulebook counts wealth (start shares, shares held, treasury)."""
    state, clicks = play_as_anna("eic", page, quick_stack)
    assert state["status"] == "finished"
    assert {"space", "ship", "zone"} <= clicks.kinds
    assert "Epoch 5 ends" in page.locator("#log").inner_text()
    page.locator("#outcome").wait_for()
    assert "Anna" in page.locator("#final-table").inner_text()
    table = final_table(page)
    assert [score for score, _ in table] == sorted(state["outcome"]["scores"], reverse=True)
    for score, parts in table:
        assert "treasury" in page.locator("#final-table").inner_text()
        assert sum(parts) == score, (score, parts)
