"""Rematch in Chromium at 390 and 1360 px (issue 44.10): Ann and Bob finish a table's race (Ann wins at her
first roll); both end screens offer *Rematch*; Bob clicks it and lands at the new private table in the
lobby, invited; Ann's end screen turns into *Go to the rematch* by itself, she joins with one click, the
table (the same three seats, the same bot) is full and both are in the new game."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

from tests.browser.rating_scene import TRUSTING, person, post
from tests.support.harness import ServerThread
from tests.support.players_stack import rated_stack

SHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
RACE_TO_ONE = {"game": "race", "seats": 3, "bots": ["random"], "options": {"goal": 1}}


@pytest.fixture
def stack(redis_url: str, redis_client: redis.Redis) -> Iterator[ServerThread]:
    with rated_stack(redis_url, bot_delay_s=0.3, limits=TRUSTING) as server:
        yield server


@pytest.mark.parametrize("width", [390, 1360])
def test_rematch_with_the_same_people(width: int, browser: Any, stack: ServerThread) -> None:
    ann, bob = person(browser, stack.base, "Ann", width), person(browser, stack.base, "Bob", width)
    table = post(ann, "/api/tables", RACE_TO_ONE)
    game_id = post(bob, f"/api/tables/{table['table_id']}/join")["game_id"]
    post(ann, f"/api/games/{game_id}/commands?wait=true", {"command": {"type": "Roll"}})
    for page in (ann, bob):
        page.goto(f"{stack.base}/games/{game_id}")
        page.locator("#rematch").wait_for()
    ann.locator("#rematch-box").screenshot(path=str(SHOTS / f"rematch-{width}.png"))

    bob.locator("#rematch").click()
    bob.wait_for_url(re.compile(r"/\?table=\w+$"))
    mine = bob.locator(".table-row.invited")
    mine.wait_for()
    assert "private" in mine.inner_text() and "Seated: Bob + random bot" in mine.inner_text()

    ann.locator("#rematch-join").wait_for(timeout=15_000)  # her end screen asks every 3 s
    ann.locator("#rematch-join").click()
    invited = ann.locator(".table-row.invited")
    invited.wait_for()
    assert "1 of 3 seats free" in invited.inner_text()
    invited.locator("button.join").click()
    ann.wait_for_url(re.compile(r"/games/\w+$"))
    bob.wait_for_url(re.compile(r"/games/\w+$"), timeout=15_000)
    assert ann.url == bob.url and not ann.url.endswith(game_id)
    assert not ann.errors and not bob.errors, (ann.errors, bob.errors)
