"""Ratings people trust, in Chromium at 390 and 1360 px (issue 44, finding 5): a tie for second is shown as a
shared place ("2nd= of 3") with an equal rating change, on the end screen of each of the tied players and on
their pages, and the OpenSkill numbers are behind a click."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import redis

from tests.browser.people import scrolls_sideways
from tests.browser.rating_scene import TRUSTING, end_screen, person, profile_row, tie_for_second
from tests.support.harness import ServerThread
from tests.support.players_stack import rated_stack


@pytest.fixture
def stack(redis_url: str, redis_client: redis.Redis) -> Iterator[ServerThread]:
    with rated_stack(redis_url, bot_delay_s=0.0, limits=TRUSTING) as server:
        yield server


@pytest.mark.parametrize("width", [390, 1360])
def test_a_tie_for_second_is_a_shared_place_with_an_equal_change(
    browser: Any, stack: ServerThread, width: int
) -> None:
    ann, bob, cy = (person(browser, stack.base, name, width) for name in ("Ann", "Bob", "Cy"))
    game_id = tie_for_second(ann, bob, cy, watching=(cy, stack.base))
    cy.locator("#rating-changes").wait_for(timeout=30_000)  # the game ended live on Cy's page: no reload
    assert cy.locator("#rating-changes tr[data-account=Cy] td.place").inner_text() == "2nd= of 3"

    seen = {name: end_screen(page, stack.base, game_id) for name, page in (("Bob", bob), ("Cy", cy))}
    assert seen["Bob"] == seen["Cy"]  # everyone's end screen shows the same table
    rows = seen["Bob"]
    assert rows["Ann"][0] == "1st of 3" and rows["Ann"][1].startswith("+")
    assert rows["Bob"] == rows["Cy"] and rows["Bob"][0] == "2nd= of 3"
    assert rows["Bob"][1].startswith("−")  # a real minus sign: two players beat them

    details = bob.locator("#ratings details.openskill")
    assert not details.evaluate("d => d.open") and not details.locator("table").is_visible()
    details.locator("summary").click()
    assert details.locator("table").is_visible() and "μ before" in details.inner_text()
    assert not scrolls_sideways(bob), "the end screen's ratings overflow the page"

    assert profile_row(bob, stack.base, "Bob", game_id) == profile_row(cy, stack.base, "Cy", game_id)
    assert profile_row(bob, stack.base, "Bob", game_id) == rows["Bob"]
    heading = bob.locator("section.rating[data-game=race] h3").inner_text()
    assert "provisional · 1 of 10 games" in heading
    assert "μ" not in bob.locator("section.rating[data-game=race] table.history").inner_text()
    assert not scrolls_sideways(bob), "the profile overflows the page"
    bob.goto(f"{stack.base}/leaderboards/race")
    board = bob.locator("#leaderboard tr[data-name]")
    board.first.wait_for()
    texts = {row.get_attribute("data-name"): row.inner_text() for row in board.all()}
    assert (
        "provisional" in texts["Bob"] and texts["Bob"].split()[2] == texts["Cy"].split()[2]
    )  # equal numbers
    assert not scrolls_sideways(bob), "the leaderboard overflows the page"
    assert not bob.errors and not cy.errors, (bob.errors, cy.errors)
