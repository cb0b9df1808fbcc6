"""Rules help and readable options (issue 44, point 8), at 390 and 1360 px: the lobby's forms name each
option in words with one line of explanation, a table's row in the lobby shows its options in words (never
``variant_boarding`` or ``all_twenty``), the help page (linked from the lobby and the game page) has each
game's summary under the rulebook's section names and each option explained, and the game page's main
board elements carry hover text."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis

from tests.browser.axe import serious_violations
from tests.browser.people import scrolls_sideways
from tests.browser.test_players import person
from tests.browser.waiting import wait_until
from tests.support.client import create
from tests.support.harness import ServerThread
from tests.support.players_stack import rated_stack

SHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
WIDTHS = (390, 1360)
RAW_NAMES = ("variant_boarding", "all_twenty", "three_of_each", "pledging", "expansions")


@pytest.fixture
def stack(redis_url: str, redis_client: redis.Redis) -> Iterator[ServerThread]:
    with rated_stack(redis_url, bot_delay_s=0.3) as server:
        yield server


def _narrow(page: Any, width: int) -> None:
    page.set_viewport_size({"width": width, "height": 900})


def test_options_are_named_and_explained_in_the_forms_and_the_table_row(
    browser: Any, stack: ServerThread
) -> None:
    ann = person(browser, stack.base, "Ann")
    for width in WIDTHS:
        _narrow(ann, width)
        ann.locator("#table-game").select_option("manila")
        box = ann.locator("#table-options")
        assert "Boarding variant" in box.inner_text()
        assert "displacing one of its crew" in box.inner_text()  # the one line saying what it changes
        assert "from three of each good (2005 edition)" in box.inner_text()
        described = box.locator("input[data-option=variant_boarding]").get_attribute("aria-describedby")
        assert described and "displacing" in ann.locator(f"#{described}").inner_text()
        ann.locator("#table-game").select_option("eic")
        assert "bought back at full value" in box.inner_text()
        ann.locator("#game-kind").select_option("elcapitan")
        assert "Expansion cities" in ann.locator("#options").inner_text()  # the form for games by links too
        assert not scrolls_sideways(ann), width

    ann.locator("#table-game").select_option("manila")
    ann.locator("#table-options input[data-option=variant_boarding]").check()
    ann.locator("#table-options select[data-option=deal]").select_option("three_of_each")
    ann.locator("#open-table button[type=submit]").click()
    row = ann.locator(".table-row", has_text="Manila")
    row.wait_for()
    shown = row.locator(".options").inner_text()
    assert shown == "Boarding variant · Shares dealt at the start: from three of each good (2005 edition)"
    assert not any(raw in row.inner_text() for raw in RAW_NAMES)


def test_the_help_page_summarises_each_game_under_the_rulebooks_section_names(
    browser: Any, stack: ServerThread
) -> None:
    for width in WIDTHS:
        context = browser.new_context(viewport={"width": width, "height": 900})
        try:
            page = context.new_page()
            page.goto(f"{stack.base}/")
            page.locator("#help-link").click()
            page.locator("#eic").wait_for()
            text = page.locator("#help").inner_text()
            for printed in ("Das Amt des Hafenmeisters versteigern", "PAYDAY", "F. Ende der Epoche"):
                assert printed in text  # the rulebook's own section name, to find the full rule
            for gloss in ("Auctioning the harbour master", "End of the epoch"):
                assert gloss in text
            for option in ("Boarding variant", "Expansion cities", "Pledging"):
                assert option in text
            assert not any(raw in text for raw in RAW_NAMES)
            assert not scrolls_sideways(page), width
            assert serious_violations(page) == [], width
            page.goto(f"{stack.base}/static/help.html#manila")
            wait_until(page, "() => document.getElementById('manila') !== null")
            page.screenshot(path=str(SHOTS / f"help-{width}.png"))
        finally:
            context.close()


HOVER_WORDS = {
    "manila": ("harbour", "boat"),
    "elcapitan": ("bank harbour", "sail here to build"),
    "eic": ("share", "port"),
}
"""Words of each board's hover texts on its main elements (places, ships or boats, shares, ports)."""


def test_the_game_page_links_the_help_and_its_board_has_hover_text(
    browser: Any, stack: ServerThread, page: Any
) -> None:
    with httpx.Client(base_url=stack.base, timeout=30) as api:
        made = {kind: create(api, kind, 3, names=["Anna", "Bruno", "Carla"]) for kind in HOVER_WORDS}
    for width in WIDTHS:
        _narrow(page, width)
        for kind, words in HOVER_WORDS.items():
            game = made[kind]
            page.goto(f"{stack.base}/games/{game['game_id']}#token={game['seats'][0]['token']}")
            page.locator(f"#board svg.board-{kind}").wait_for()
            assert page.locator("#help-link").get_attribute("href") == "/static/help.html"
            hover = page.evaluate(
                "[...document.querySelectorAll('#board svg title')].map((t) => t.textContent)"
            )
            for word in words:
                assert any(word in h for h in hover), (kind, word, hover[:5])
            assert not scrolls_sideways(page), (kind, width)
