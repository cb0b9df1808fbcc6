"""Screenshots of the game page's newer parts (issue 44), beside ``tests.browser.screenshots``' boards.

``python -m tests.browser.screenshots_more`` starts its own Redis and stack and writes to ``docs/screenshots/``:

- ``<game>-player-de-<width>.png``: each game's board mid-game as a player, in German (``locale="de-DE"``);
- ``undo-<width>.png`` (and ``undo-de-390.png``): El Capitán just after a card bought with one click, with
  *Undo my move* shown; ``resign-ask-…``: the screen after *Resign* was clicked there;
- ``seat-bot-<width>.png`` (and ``-de-390``): the clock handed Bob's seat to a bot on his turn; his page says
  the stand-in is playing it and offers *Take my seat back*;
- ``vote-<width>.png`` (and ``-de-390``): Bob's time ran out at a table opened with "the others vote"; Ann's
  page asks her to end the game or play on.

``… screenshots_more german`` (or ``undo``, ``seats``) takes only those. Needs Chromium and playwright, as the
other module does.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import httpx

from tests.browser.people import person
from tests.browser.rating_scene import TRUSTING
from tests.browser.screenshots import MOVES, SHOTS, WIDTHS, _mid_game
from tests.browser.shooting import headless_chromium, own_redis
from tests.browser.test_seat_events import bobs_time_runs_out, open_and_join, plays_until_to_act
from tests.integration.players.test_resign import Hooks
from tests.support.client import create
from tests.support.harness import running_stack

WAIT_MS = 60_000  # generous: a loaded 2-core machine
LOCALES = {"en": "en-US", "de": "de-DE"}
# Each scene in English at both widths, and in German on a phone, where the longer words must still fit.
SCENES = [(1360, "en"), (390, "en"), (390, "de")]


def _name(kind: str, width: int, language: str) -> Path:
    return SHOTS / (f"{kind}-{width}.png" if language == "en" else f"{kind}-{language}-{width}.png")


def _page(browser: Any, url: str, width: int, language: str) -> Any:
    context = browser.new_context(
        viewport={"width": width, "height": 900}, device_scale_factor=1, locale=LOCALES[language]
    )
    page = context.new_page()
    page.goto(url)
    return page


def _shot(page: Any, target: Path) -> None:
    # from the top: a full-page shot draws the sticky action bar where the page was scrolled to
    page.evaluate("window.scrollTo(0, 0)")
    page.wait_for_timeout(600)  # let the legal moves be highlighted and the clocks drawn
    page.screenshot(path=str(target), full_page=True)


def _german(browser: Any, api: httpx.Client, base: str) -> None:
    for kind in MOVES:
        game_id, token = _mid_game(api, kind)
        for width in WIDTHS:
            page = _page(browser, f"{base}/games/{game_id}#token={token}", width, "de")
            try:
                page.locator("#board svg").first.wait_for(timeout=WAIT_MS)
                _shot(page, SHOTS / f"{kind}-player-de-{width}.png")
            finally:
                page.context.close()


def _undo(browser: Any, api: httpx.Client, base: str) -> None:
    for width, language in SCENES:
        game = create(api, "elcapitan", 2, names=["Anna", "Bruno"])
        gid = game["game_id"]
        seat = api.get(f"/api/games/{gid}").json()["to_act"][0]
        token = next(s["token"] for s in game["seats"] if s["seat"] == seat)
        page = _page(browser, f"{base}/games/{gid}#token={token}", width, language)
        try:
            card = page.locator('#board [data-target^="buy:"].legal').first
            card.wait_for(timeout=WAIT_MS)
            card.click()  # one click buys
            page.locator("#take-back").wait_for(timeout=WAIT_MS)
            _shot(page, _name("undo", width, language))
            page.locator("#resign").click()  # the question Resign asks, on the same page
            page.locator("#resign-no").wait_for(timeout=WAIT_MS)
            page.locator("#players").scroll_into_view_if_needed()
            page.screenshot(path=str(_name("resign-ask", width, language)))  # the screen, not the page
        finally:
            page.context.close()


def _seats(browser: Any, base: str, url: str) -> None:
    for n, (width, language) in enumerate(SCENES):
        for then, who, selector, kind in (
            ("bot", 1, "#take-seat-back", "seat-bot"),
            ("vote", 0, "#end-vote", "vote"),
        ):
            people = [
                person(browser, base, f"{name}{kind[0]}{n}", width, locale=LOCALES[language])
                for name in ("Ann", "Bob")
            ]
            try:
                game_id = open_and_join(people[0], people[1], then)
                if then == "bot":  # on his turn: the stand-in plays it
                    plays_until_to_act(people[0], base, game_id, 1)
                bobs_time_runs_out(url, game_id, then)
                page = people[who]
                page.locator(selector).wait_for(timeout=WAIT_MS)
                if then == "bot":
                    page.locator("#stand-in-turn").wait_for(timeout=WAIT_MS)
                _shot(page, _name(kind, width, language))
            finally:
                for page in people:
                    page.context.close()


def main(argv: list[str]) -> int:
    only = argv[0] if argv else None
    with (
        own_redis() as server,
        running_stack(
            server.url, bot_delay_s=0.0, limits=TRUSTING, on_applied=lambda _: Hooks(server.url)
        ) as stack,
        httpx.Client(base_url=stack.base, timeout=60) as api,
        headless_chromium() as browser,
    ):
        if only in (None, "german"):
            _german(browser, api, stack.base)
        if only in (None, "undo"):
            _undo(browser, api, stack.base)
        if only in (None, "seats"):
            _seats(browser, stack.base, server.url)
    sys.stdout.write(f"screenshots written to {SHOTS}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
