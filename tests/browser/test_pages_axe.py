"""Contrast and the rest of WCAG A/AA everywhere (issue 44.7), not on the game page alone: the lobby, the
tournaments' list and a leaderboard have no serious or critical axe-core violation at 390 and 1360 px,
and nothing on them is a button under 44 × 44 px on a phone."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.axe import serious_violations
from tests.browser.test_open_facts import SMALL_BUTTONS
from tests.support.harness import ServerThread

PAGES = {
    "lobby": ("/", "#create"),
    "tournaments": ("/tournaments", "#app"),
    "leaderboard": ("/leaderboards/manila", "main, #app, body"),
}


@pytest.mark.parametrize("name", sorted(PAGES))
def test_a_page_passes_axe_at_390_and_1360_px(name: str, browser: Any, live_stack: ServerThread) -> None:
    path, ready = PAGES[name]
    for width in (390, 1360):
        context = browser.new_context(viewport={"width": width, "height": 900})
        try:
            page = context.new_page()
            page.goto(f"{live_stack.base}{path}")
            page.locator(ready).first.wait_for()
            page.wait_for_load_state("networkidle")
            assert serious_violations(page) == [], (name, width)
            if width == 390:
                assert page.evaluate(SMALL_BUTTONS) == [], name
        finally:
            context.close()
