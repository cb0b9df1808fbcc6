"""The tournament pages in headless Chromium: a small bot tournament runs on the real stack (gateway,
fold worker, bot player and the reconciler that ``serve`` runs), its page's standings change while it
runs without a reload, and a click on a table opens that table's game."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest
import redis

from services import tournament_service as service
from tests.browser.waiting import wait_until
from tests.support.harness import ServerThread, running_stack
from tests.support.pipeline import services_for


@contextmanager
def reconciling(url: str, tid: str) -> Iterator[None]:
    """What ``serve`` does every few seconds: close a round whose games all ended and pair the next."""
    services = services_for(url)
    stop = threading.Event()

    def run() -> None:
        while not stop.wait(0.2):
            service.reconcile(services, url, tid)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(timeout=15)


@pytest.fixture
def fast_stack(redis_url: str, redis_client: redis.Redis) -> Iterator[ServerThread]:
    with running_stack(redis_url, bot_delay_s=0.02) as server:
        yield server


def _points(page: Any) -> list[int]:
    return [int(x) for x in page.locator("#standings td.points").all_inner_texts()]


def test_the_standings_update_live_and_a_table_opens_its_game(
    page: Any, fast_stack: ServerThread, redis_url: str
) -> None:
    spec = {"game": "elcapitan", "players": 4, "table_size": 2, "rounds": 2, "bots": ["greedy", "random"],
            "id": "tpage"}  # fmt: skip
    with httpx.Client(base_url=fast_stack.base, timeout=30) as api:
        created = api.post("/api/tournaments", json=spec)
        assert created.status_code == 201, created.text
        organiser = {"Authorization": f"Bearer {created.json()['organiser_key']}"}
        page.goto(fast_stack.base + "/")
        page.click("a[href='/tournaments']")  # the lobby links the tournament list
        page.locator("[data-tournament=tpage]").wait_for()
        assert "not started" in page.locator("[data-tournament=tpage]").inner_text()
        page.click("[data-tournament=tpage]")
        page.wait_for_url("**/tournaments/tpage")
        page.locator("#standings").wait_for()
        assert _points(page) == [0, 0, 0, 0]
        page.evaluate("window.unreloaded = true")  # gone if the page reloads: the updates must be live

        assert api.post("/api/tournaments/tpage/start", headers=organiser).status_code == 200
        with reconciling(redis_url, "tpage"):
            page.locator("#status.live").wait_for(timeout=60_000)
            page.locator("details.round[data-round='1'] .table-row").first.wait_for()
            # Round 1 closes when both tables end: the standings (and the points column) change.
            wait_until(
                page,
                "[...document.querySelectorAll('#standings td.points')].some((td) => td.textContent !== '0')",
                timeout_ms=120_000,  # a round of two El Capitán games: seconds, more under heavy load
            )
        assert page.evaluate("window.unreloaded") is True
        points = _points(page)
        assert points == sorted(points, reverse=True) and sum(points) > 0
        ranks = page.locator("#standings td.rank").all_inner_texts()
        assert ranks[0] == "1"

        # Round 1's close paired round 2 in the same append: its tables are open, one click from watching.
        table = page.locator("details.round[data-round='2'][open] .table-row").first
        game_id = table.get_attribute("data-game")
        assert game_id == "tpage-r2-t1"
        table.click()
        page.wait_for_url(f"**/games/{game_id}")
        page.locator("#board svg").wait_for()
        assert api.get(f"/api/games/{game_id}").status_code == 200


@pytest.mark.parametrize("width", [390, 1920])
def test_the_tournament_pages_fit_a_phone_and_a_wall_screen(
    width: int, browser: Any, fast_stack: ServerThread
) -> None:
    spec = {
        "game": "manila",
        "players": 7,
        "table_size": 4,
        "rounds": 2,
        "bots": ["greedy"],
        "id": f"fit{width}",
    }
    with httpx.Client(base_url=fast_stack.base, timeout=30) as api:
        key = api.post("/api/tournaments", json=spec).json()["organiser_key"]
        started = api.post(f"/api/tournaments/fit{width}/start", headers={"Authorization": f"Bearer {key}"})
        assert started.status_code == 200
    context = browser.new_context(viewport={"width": width, "height": 900})
    try:
        page = context.new_page()
        for path, ready in (("/tournaments", ".tournament-row"), (f"/tournaments/fit{width}", ".table-row")):
            page.goto(fast_stack.base + path)
            page.locator(ready).first.wait_for()
            assert page.evaluate("document.documentElement.scrollWidth") <= width, path
            assert page.evaluate("document.querySelector('main').scrollWidth") <= width, path
    finally:
        context.close()


def test_a_person_s_link_shows_their_table_one_click_away(page: Any, fast_stack: ServerThread) -> None:
    # Anna and two bots ("players" counts the bots): one table of three, no bye (with a fourth player
    # the round's bye fell to Anna one time in four, and she had no table to be shown)
    spec = {"game": "manila", "entrants": [{"name": "Anna"}], "players": 2, "bots": ["greedy"], "rounds": 1,
            "table_size": 3, "id": "tyou"}  # fmt: skip
    with httpx.Client(base_url=fast_stack.base, timeout=30) as api:
        created = api.post("/api/tournaments", json=spec)
        assert created.status_code == 201, created.text
        [anna] = created.json()["people"]
        organiser = {"Authorization": f"Bearer {created.json()['organiser_key']}"}
        assert api.post("/api/tournaments/tyou/start", headers=organiser).status_code == 200
    page.goto(f"{fast_stack.base}/tournaments/tyou#key=wrong")
    page.locator(".notice.error").wait_for()  # a key of nobody: said so, and the page still shows
    page.locator("#standings").wait_for()
    assert page.locator(".you-panel").count() == 0

    page.goto("about:blank")  # a new load: a change of the hash alone would keep the page and its key
    page.goto(f"{fast_stack.base}/tournaments/tyou#key={anna['key']}")
    link = page.locator("#your-table")
    link.wait_for(timeout=90_000)  # once the round's tables are seated (a job; slow on a loaded machine)
    assert anna["key"] not in page.locator("body").inner_text()  # the key is never printed
    # the row: place, the player's number (as withdraw takes it), name
    assert page.locator("#standings tr.mine").inner_text().split()[2] == "Anna"
    assert link.get_attribute("href") == f"/games/tyou-r1-t1#token={anna['key']}"
    mine = page.locator(".table-row.mine")  # in the round's list too, her table opens with her seat
    assert mine.get_attribute("href") == link.get_attribute("href")
    link.click()
    page.wait_for_url("**/games/tyou-r1-t1**")
    page.locator("#board svg").wait_for()
