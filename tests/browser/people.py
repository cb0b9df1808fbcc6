"""People in the browser tests: a browser of one's own, in the lobby, signed up (or in) through the account
form as a person does. One place for the steps the table, clock, presence, chat and rating tests share."""

from __future__ import annotations

import re
from typing import Any

from tests.support.players_stack import address_of

PASSWORD = "a long enough password"


def scrolls_sideways(page: Any) -> bool:
    """Whether the page itself scrolls sideways (a wide table scrolling inside its own box does not count)."""
    return bool(page.evaluate("document.documentElement.scrollWidth > window.innerWidth + 1"))


def sign_with_form(page: Any, name: str, sign: str = "signup") -> None:
    """On a lobby page, ``name`` signs up (``sign="signin"``: in) with the form; waits for the signed-in line."""
    form = page.locator("#account-form")
    form.locator("input[name=name]").fill(name)
    form.locator("input[name=password]").fill(PASSWORD)
    form.locator(f"button[name={sign}]").click()
    page.locator("#signed-in").wait_for()


def person(
    browser: Any,
    base: str,
    name: str,
    width: int = 1360,
    *,
    height: int = 900,
    address: str | None = None,
    sign: str = "signup",
    **context: Any,
) -> Any:
    """A browser context of its own (cookies apart) at ``width`` x ``height`` px, in the lobby, signed up (or
    in) as ``name``, from ``address`` (by default its own: accounts seen on one address are not rated against
    each other). ``page.errors`` collects the console's errors. ``context``: more options for the context."""
    headers = {"X-Forwarded-For": address or address_of(name)}  # the tests' gateway trusts a loopback proxy
    page = browser.new_context(
        viewport={"width": width, "height": height}, extra_http_headers=headers, **context
    ).new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.errors = errors
    page.goto(f"{base}/")
    sign_with_form(page, name, sign)
    return page


def join_from_lobby(creator: Any, joiner: Any, listed_as: str) -> str:
    """``joiner`` finds the table ``creator`` opened (its lobby row says ``listed_as``) and takes its last seat;
    both pages go to the game. Its id."""
    row = joiner.locator(".table-row", has_text=listed_as)
    row.wait_for(timeout=10_000)  # the lobby refreshes every 3 s
    row.locator("button.join").click()
    joiner.wait_for_url(re.compile(r"/games/\w+$"))
    game_id: str = joiner.url.rsplit("/", 1)[1]
    # her lobby sees the start at its next refresh (3 s), slow under load
    creator.wait_for_url(re.compile(rf"/games/{game_id}$"), timeout=45_000)
    return game_id
