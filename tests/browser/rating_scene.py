"""A rated game with a tie for second, made by three people in Chromium (issue 44): the scene of
``tests/browser/test_ratings.py`` and of its screenshots.

Each person has a browser of their own on an address of their own (``X-Forwarded-For`` from a proxy the
gateway trusts: accounts seen on one address are not rated against each other). Ann opens a three-seat test
race to 1 from her page, Bob and Cy join from theirs, Ann rolls: she wins at once, Bob and Cy stay on 0 and
share second place.

``python -m tests.browser.rating_scene`` starts its own Redis and rated stack and writes
``docs/screenshots/ratings-end-<width>.png`` (the end screen, the OpenSkill details opened) and
``ratings-profile-<width>.png`` (Bob's page) and ``ratings-leaderboard-<width>.png`` at 390 and 1360 px.
"""

from __future__ import annotations

import sys
from typing import Any

import msgspec

from tests.browser import people
from tests.browser.shooting import SHOTS, headless_chromium, own_redis
from tests.support.harness import UNLIMITED
from tests.support.players_stack import rated_stack

PEOPLE = {"Ann": "198.51.100.1", "Bob": "198.51.100.2", "Cy": "198.51.100.3"}
TRUSTING = msgspec.structs.replace(UNLIMITED, trusted_proxies=("127.0.0.1",))
"""The tests' gateway behind a proxy on loopback (each browser says its own address)."""

_POST = """async ([path, body]) => {
  const r = await fetch(path, { method: "POST", headers: { "Content-Type": "application/json" },
                                body: body === null ? undefined : JSON.stringify(body) });
  return [r.status, await r.json()];
}"""


def person(browser: Any, base: str, name: str, width: int) -> Any:
    """A browser of its own at ``width`` px, signed up as ``name`` in the lobby, from its own address."""
    return people.person(browser, base, name, width, address=PEOPLE[name], device_scale_factor=1)


def post(page: Any, path: str, body: Any = None) -> Any:
    """A POST from the page itself (its session cookie, its own origin), as the client's forms send."""
    status, answer = page.evaluate(_POST, [path, body])
    assert status in (200, 201), (path, status, answer)
    return answer


def tie_for_second(ann: Any, bob: Any, cy: Any, watching: tuple[Any, str] | None = None) -> str:
    """The game: Ann wins the race to 1 at her first roll; Bob and Cy, on 0, share second. Its id.
    ``watching``: a page (and the server's base URL) that opens the game before the roll and sees it end."""
    table = post(ann, "/api/tables", {"game": "race", "seats": 3, "options": {"goal": 1}})
    post(bob, f"/api/tables/{table['table_id']}/join")
    game_id: str = post(cy, f"/api/tables/{table['table_id']}/join")["game_id"]
    # Ann's lobby may follow her table into its game (when a refresh saw her seated at it before it filled):
    # she goes there herself, so that her roll is not sent from a lobby navigating away under it
    origin = ann.url.split("/", 3)
    ann.goto(f"{origin[0]}//{origin[2]}/games/{game_id}")
    if watching is not None:
        page, base = watching
        page.goto(f"{base}/games/{game_id}")
        page.locator("#conn", has_text="connected").wait_for()
    post(ann, f"/api/games/{game_id}/commands?wait=true", {"command": {"type": "Roll"}})
    return game_id


def end_screen(page: Any, base: str, game_id: str) -> dict[str, tuple[str, str]]:
    """The end screen's rating changes: account -> (place, change) as shown."""
    page.goto(f"{base}/games/{game_id}")
    page.locator("#rating-changes").wait_for(timeout=30_000)
    rows = page.locator("#rating-changes tr[data-account]")
    return {
        row.get_attribute("data-account"): (
            row.locator("td.place").inner_text(),
            row.locator("td.change").inner_text(),
        )
        for row in rows.all()
    }


def profile_row(page: Any, base: str, name: str, game_id: str) -> tuple[str, str]:
    """(place, change) of ``game_id`` on ``name``'s page."""
    page.goto(f"{base}/players/{name}")
    row = page.locator(f"section.rating[data-game=race] tr[data-game-id='{game_id}']")
    row.wait_for()
    return row.locator("td.place").inner_text(), row.locator("td.change").inner_text()


def shoot(browser: Any, base: str, game_id: str, width: int) -> None:
    """The end screen (OpenSkill details opened) and Bob's page at ``width``, as anyone sees them."""
    context = browser.new_context(viewport={"width": width, "height": 900}, device_scale_factor=1)
    try:
        page = context.new_page()
        end_screen(page, base, game_id)
        page.locator("#ratings details.openskill summary").click()
        page.screenshot(path=str(SHOTS / f"ratings-end-{width}.png"), full_page=True)
        profile_row(page, base, "Bob", game_id)
        page.locator("section.rating details.openskill summary").click()
        page.screenshot(path=str(SHOTS / f"ratings-profile-{width}.png"), full_page=True)
        page.goto(f"{base}/leaderboards/race")
        page.locator("#leaderboard").wait_for()
        page.screenshot(path=str(SHOTS / f"ratings-leaderboard-{width}.png"), full_page=True)
    finally:
        context.close()


def main() -> int:
    with (
        own_redis() as server,
        rated_stack(server.url, bot_delay_s=0.0, limits=TRUSTING) as stack,
        headless_chromium() as browser,
    ):
        ann, bob, cy = (person(browser, stack.base, name, 1360) for name in PEOPLE)
        game_id = tie_for_second(ann, bob, cy)
        for width in (390, 1360):
            shoot(browser, stack.base, game_id, width)
    sys.stdout.write(f"screenshots written to {SHOTS}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
