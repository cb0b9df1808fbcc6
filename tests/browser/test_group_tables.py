"""Tables for a group in Chromium at 390 and 1360 px (issue 44.10): Ann opens a private Manila table, which
Cy's lobby never lists; its invite link, opened by Bob, shows the table with its invitation and seats him
with one click, and both land in the game. A table Ann and her bots fill is shown to Cy as full and
waiting for Ann, with no Join; Ann sees *Start now* as the table's main button and it starts the game.
*My games* shows each game's date, opponents and, once it ends, the winner."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

from tests.browser.people import scrolls_sideways
from tests.browser.rating_scene import TRUSTING, person, post
from tests.browser.waiting import wait_until
from tests.support.harness import ServerThread
from tests.support.players_stack import rated_stack

SHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"


@pytest.fixture
def stack(redis_url: str, redis_client: redis.Redis) -> Iterator[ServerThread]:
    with rated_stack(redis_url, bot_delay_s=0.3, limits=TRUSTING) as server:
        yield server


def _open_table(page: Any, seats: str, bots: str, private: bool) -> Any:
    page.locator("#table-game").select_option("manila")
    page.locator("#table-seats").select_option(seats)
    page.locator("#table-bots").select_option(bots)
    page.locator("#table-private").set_checked(private)
    page.locator("#open-table button[type=submit]").click()


@pytest.mark.parametrize("width", [390, 1360])
def test_a_private_table_by_invite_link(width: int, browser: Any, stack: ServerThread) -> None:
    ann, bob, cy = (person(browser, stack.base, name, width) for name in ("Ann", "Bob", "Cy"))
    _open_table(ann, "3", "1", private=True)
    row = ann.locator(".table-row", has_text="Manila")
    row.wait_for()
    assert "private" in row.inner_text() and "1 of 3 seats free" in row.inner_text()
    link = row.locator("input.invite-link").input_value()
    assert re.fullmatch(rf"{re.escape(stack.base)}/\?table=\w+", link), link
    assert not scrolls_sideways(ann), width
    row.screenshot(path=str(SHOTS / f"table-invite-{width}.png"))

    cy.reload()  # a fresh lobby: the private table is not in its list
    cy.locator("#tables p, #tables .table-row").first.wait_for()
    assert cy.locator(".table-row").count() == 0

    bob.goto(link)
    invited = bob.locator(".table-row.invited")
    invited.wait_for()
    assert "You were invited to this table." in invited.inner_text()
    assert not scrolls_sideways(bob), width
    invited.locator("button.join").click()
    bob.wait_for_url(re.compile(r"/games/\w+$"))
    ann.wait_for_url(re.compile(r"/games/\w+$"), timeout=15_000)  # her lobby sees the table start
    assert ann.url == bob.url
    assert not ann.errors and not bob.errors, (ann.errors, bob.errors)


@pytest.mark.parametrize("width", [390, 1360])
def test_a_table_filled_by_bots_waits_for_start_now_and_my_games_shows_the_winner(
    width: int, browser: Any, stack: ServerThread
) -> None:
    ann, cy = (person(browser, stack.base, name, width) for name in ("Ann", "Cy"))
    _open_table(ann, "3", "2", private=False)
    row = ann.locator(".table-row", has_text="Manila")
    row.wait_for()
    assert "full: waiting for Ann to start" in row.inner_text()
    start = row.locator("button.start.primary")
    assert start.inner_text() == "Start now with 3 players" and start.is_enabled()
    seen = cy.locator(".table-row", has_text="Manila")
    seen.wait_for(timeout=10_000)  # the lobby refreshes every 3 s
    assert "full: waiting for Ann to start" in seen.inner_text()
    assert seen.locator("button.join").count() == 0  # nothing to join: no seat is free
    start.click()
    ann.wait_for_url(re.compile(r"/games/\w+$"))

    race = post(ann, "/api/tables", {"game": "race", "seats": 2, "bots": ["random"], "options": {"goal": 1}})
    game_id = post(ann, f"/api/tables/{race['table_id']}/start")["game_id"]
    post(ann, f"/api/games/{game_id}/commands?wait=true", {"command": {"type": "Roll"}})  # she wins at once
    ann.goto(f"{stack.base}/")
    finished = ann.locator(f".my-game[data-game='{game_id}']")
    finished.wait_for()
    wait_until(ann, "(id) => document.querySelector(`.my-game[data-game='${id}'] .winner`) !== null", game_id)
    text = finished.inner_text()
    assert "won by you" in text and "with Random bot 2" in text, text
    assert finished.locator("time").get_attribute("datetime")
    assert ann.locator(".my-game").count() == 2  # the Manila game too, with its two bots
    assert "with Greedy bot 2, Greedy bot 3" in ann.locator(".my-game").nth(1).inner_text().replace("\n", " ")
    assert not scrolls_sideways(ann), width
    ann.locator("#my-games-panel").screenshot(path=str(SHOTS / f"my-games-{width}.png"))


@pytest.mark.parametrize("width", [390, 1360])
def test_a_game_by_links_shows_in_my_games(width: int, browser: Any, stack: ServerThread) -> None:
    ann = person(browser, stack.base, "Ann", width)
    made = post(ann, "/api/games", {"game": "manila", "seats": 3, "names": ["Anna", "Bruno", "Carla"]})
    kept = re.compile(rf"/api/games/{made['game_id']}/mine$")
    with ann.expect_response(lambda r: bool(kept.search(r.url)), timeout=30_000) as mine:
        ann.goto(f"{stack.base}/games/{made['game_id']}#token={made['seats'][1]['token']}")  # Bruno's link
        ann.locator("#board svg.board-manila").wait_for()
    assert mine.value.status in (200, 201, 204), mine.value.status  # leaving before it lands would cancel it
    ann.goto(f"{stack.base}/")
    linked = ann.locator(f".my-game[data-game='{made['game_id']}']")
    linked.wait_for()
    text = linked.inner_text().replace("\n", " ")
    assert "Manila" in text and "with" in text and "Anna" in text and "Carla" in text, text
    assert not scrolls_sideways(ann), width
    assert not ann.errors, ann.errors


@pytest.mark.parametrize("width", [390, 1360])
def test_the_table_chats_before_the_start(width: int, browser: Any, stack: ServerThread) -> None:
    ann, bob = person(browser, stack.base, "Ann", width), person(browser, stack.base, "Bob", width)
    table = post(ann, "/api/tables", {"game": "race", "seats": 3})
    post(bob, f"/api/tables/{table['table_id']}/join")
    for page in (ann, bob):
        page.goto(f"{stack.base}/")
        page.locator("#table-chat-panel").wait_for()
    ann.locator("#table-chat-text").fill("half a thought")  # the lobby's refreshes must not wipe it
    bob.locator("#table-chat-text").fill("hello Ann, one more and we start")
    bob.locator("#table-chat-form button[type=submit]").click()
    line = ann.locator("#table-chat-log .chat-line", has_text="one more and we start")
    line.wait_for(timeout=15_000)  # Ann's lobby reads it at its next refresh
    assert line.inner_text().startswith("Bob")
    assert ann.locator("#table-chat-text").input_value() == "half a thought"
    assert "Ann, Bob" in ann.locator("#table-chat-title").inner_text()
    assert not scrolls_sideways(ann) and not scrolls_sideways(bob), width
    ann.locator("#table-chat-panel").screenshot(path=str(SHOTS / f"table-chat-{width}.png"))
    assert not ann.errors and not bob.errors, (ann.errors, bob.errors)
