"""The web client in German and English (issue 44): a browser whose language is German gets the lobby and a
game page in German, the header's switch turns them into English and the choice is kept over the browser's
own language; neither language makes a page scroll sideways on a phone or a wide screen."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest

from tests.browser.axe import serious_violations
from tests.browser.people import scrolls_sideways
from tests.browser.test_open_facts import SMALL_BUTTONS
from tests.browser.waiting import wait_until
from tests.support.client import create
from tests.support.harness import ServerThread

WAIT_MS = 30_000  # a loaded 2-core machine: generous, never a fixed sleep


def lobby_in(page: Any, heading: str, switch: str, lang: str) -> None:
    """The lobby shows ``heading`` over its open tables, the header's switch names ``switch``."""
    page.locator("h2", has_text=heading).wait_for(timeout=WAIT_MS)
    assert page.locator("#language").inner_text() == switch
    assert page.evaluate("document.documentElement.lang") == lang


@pytest.mark.parametrize("width", [390, 1360])
def test_a_german_browser_gets_german_pages_and_the_switch_turns_them_english(
    width: int, browser: Any, live_stack: ServerThread, api: httpx.Client
) -> None:
    context = browser.new_context(viewport={"width": width, "height": 900}, locale="de-DE")
    try:
        page = context.new_page()
        errors: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.goto(live_stack.base + "/")
        lobby_in(page, "Offene Tische", "English", "de")
        assert page.title() == "Harbormaster — Lobby"
        header = page.locator("header").inner_text()
        assert "Turniere" in header and "Regelhilfe" in header
        form = page.locator("#account-form").inner_text()
        assert "Anmelden" in form and "Registrieren" in form
        assert "Partie erstellen" in page.locator("#create").inner_text()
        assert not scrolls_sideways(page)
        assert serious_violations(page) == []  # the switch too: contrast, a name, 44 px on a phone
        if width == 390:
            assert page.evaluate(SMALL_BUTTONS) == []

        page.goto(live_stack.base + "/static/help.html")
        page.locator("#elcapitan", has_text="DIE SEGELKARTEN").wait_for(timeout=WAIT_MS)
        help_text = page.locator("#help").inner_text()
        assert "Variante: Entern" in help_text and "Das Amt des Hafenmeisters versteigern" in help_text
        assert not scrolls_sideways(page)

        game = create(api, "manila", 3, names=["Anna", "Bruno", "Carla"], bots={"1": "greedy", "2": "greedy"})
        page.goto(f"{live_stack.base}/games/{game['game_id']}#token={game['seats'][0]['token']}")
        page.locator("#seat-info", has_text="Du spielst Anna.").wait_for(timeout=WAIT_MS)
        page.locator("#board svg.board-manila").wait_for(timeout=WAIT_MS)
        assert page.locator("#status").inner_text() == "läuft"
        aside = page.locator("aside").inner_text()
        assert "Spieler" in aside and "Protokoll" in aside and "Wiederholung" in aside
        wait_until(page, "document.querySelector('#turn').textContent.includes('am Zug')", timeout_ms=WAIT_MS)
        assert not scrolls_sideways(page)
        assert serious_violations(page) == []

        with page.expect_navigation(timeout=WAIT_MS):
            page.click("#language")
        page.locator("#seat-info", has_text="You play Anna.").wait_for(timeout=WAIT_MS)
        assert page.evaluate("document.documentElement.lang") == "en"
        assert page.locator("#language").inner_text() == "Deutsch"
        assert "Players" in page.locator("aside").inner_text()
        wait_until(
            page, "/to act|Your turn/.test(document.querySelector('#turn').textContent)", timeout_ms=WAIT_MS
        )
        assert not scrolls_sideways(page)

        # The choice is kept: the lobby too is English now, though the browser still asks for German.
        page.goto(live_stack.base + "/")
        lobby_in(page, "Open tables", "Deutsch", "en")
        assert page.evaluate("navigator.language") == "de-DE"
        assert not scrolls_sideways(page)
        assert not errors, errors
    finally:
        context.close()


BOARDS = {
    "manila": "Spielplan Manila",
    "elcapitan": "Spielplan El Capitán",
    "eic": "Spielplan East India Companies",
}
OPENING = {
    "manila": "Eine Partie Manila zu 3 beginnt",
    "elcapitan": "Eine Partie El Capitán zu 3 beginnt",
    "eic": "Eine Partie East India Companies zu 3 beginnt",
}
HOVER = {"manila": "Kahn", "elcapitan": "hierher segeln, um zu bauen", "eic": "eine Aktie ist"}
"""A German word of each board's hover texts."""
# A text key shown as itself (one missing from the files, or a typo): t() falls back to the key.
BARE_KEY = r"\b(?:manila|ec|eic|game|tables|lobby|players|clock|decide|chat|ratings|receipts|tour)\.[a-z_]+\b"


@pytest.mark.parametrize("kind", sorted(BOARDS))
def test_each_games_page_is_german_on_a_phone(
    kind: str, browser: Any, live_stack: ServerThread, api: httpx.Client
) -> None:
    """A seat's page of each game: the board's name, hover texts, the log's first sentence and the decision in German,
    no text key left bare, nothing scrolling sideways at 390 px."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, locale="de-DE")
    try:
        page = context.new_page()
        errors: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        game = create(api, kind, 3, names=["Anna", "Bruno", "Carla"])
        page.goto(f"{live_stack.base}/games/{game['game_id']}#token={game['seats'][0]['token']}")
        page.locator(f'#board svg[aria-label="{BOARDS[kind]}"]').wait_for(timeout=WAIT_MS)
        page.locator("#log", has_text=OPENING[kind]).wait_for(timeout=WAIT_MS)
        wait_until(page, "document.querySelector('#turn').textContent.includes('am Zug')", timeout_ms=WAIT_MS)
        hover = page.evaluate(
            "[...document.querySelectorAll('#board svg title')].map((t) => t.textContent).join(' ')"
        )
        assert HOVER[kind] in hover
        text = page.locator("body").inner_text()
        assert not re.search(BARE_KEY, text), re.search(BARE_KEY, text)
        assert not scrolls_sideways(page)
        assert not errors, errors
    finally:
        context.close()
