"""The lobby's forms offer ``strong`` and its levels (issue 45): the new-game form's seats and the open-table
form's bots, each name one the server takes; a game made from the form seats the level chosen."""

from __future__ import annotations

from typing import Any

from domain import GAMES
from tests.support.harness import ServerThread
from tests.support.players_stack import rated_stack
from workers.jobs.bots import STRONG_SECONDS, bot_names


def test_the_new_game_form_offers_every_level_of_strong_and_seats_one(
    page: Any, live_stack: ServerThread
) -> None:
    page.goto(live_stack.base + "/")
    page.select_option("#game-kind", "eic")
    page.select_option("#seat-count", "2")
    kinds = page.locator('#seats select[name="kind"]').nth(1)
    offered = kinds.locator("option").evaluate_all("options => options.map(o => o.value)")
    assert set(STRONG_SECONDS) <= set(offered)
    for key, game in GAMES.items():  # nothing offered that a game would refuse
        assert set(offered) - {"human"} <= set(bot_names(game)), key
    kinds.select_option("strong-0.2")
    page.click("#create button[type=submit]")
    page.locator("#created a.seat-link").first.wait_for()
    assert "strong-0.2 bot" in page.locator("#created").inner_text()


def test_the_open_table_form_offers_strong(page: Any, redis_url: str, redis_client: Any) -> None:
    with rated_stack(redis_url, bot_delay_s=0.0) as stack:
        page.goto(f"{stack.base}/")
        form = page.locator("#account-form")
        form.locator("input[name=name]").fill("Ann")
        form.locator("input[name=password]").fill("a long enough password")
        form.locator("button[name=signup]").click()
        page.locator("#signed-in").wait_for()
        page.locator("#table-game").select_option("eic")
        page.locator("#table-seats").select_option("3")
        page.locator("#table-bots").select_option("2")
        offered = page.locator("#table-bot-kind option").evaluate_all("options => options.map(o => o.value)")
        assert set(STRONG_SECONDS) <= set(offered)
        page.locator("#table-bot-kind").select_option("strong")
        page.locator("#open-table button[type=submit]").click()
        page.locator(".table-row").wait_for()
        assert "Seated: Ann + strong bot, strong bot" in page.locator(".table-row").inner_text()
