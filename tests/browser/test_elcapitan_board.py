"""El Capitán's board in headless Chromium: the cities on the Mediterranean where they lie (with the three
expansion cities), each tile as the rulebook lays it out, and a page that fits a phone and a wall screen."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.support.client import create
from tests.support.harness import ServerThread

EXPANSIONS = ["porto", "lisboa", "canarias"]

# Each city's tile on the page: its box, how many sites, harbour spaces and fortress sites it shows.
TILES = """() => Object.fromEntries([...document.querySelectorAll('#board [data-target^="city:"]')].map((g) => {
  const box = g.getBoundingClientRect();
  const name = g.getAttribute('data-city');
  const count = (kind) => g.querySelectorAll(`[data-target^="${kind}:${name}"]`).length;
  const sites = [...g.querySelectorAll('[data-target^="site:"]')].map((s) => s.getBoundingClientRect());
  return [name, {x: box.x + box.width / 2, y: box.y + box.height / 2, right: box.right,
    sites: count('site'), harbours: count('harbour'), forts: g.querySelectorAll('.fortresses > g').length,
    smallest: Math.min(...sites.map((s) => Math.min(s.width, s.height)))}];
}))"""


def open_board(browser: Any, base: str, game_id: str, width: int) -> tuple[Any, Any]:
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    page.goto(f"{base}/games/{game_id}")
    page.locator("#board svg.board-elcapitan").wait_for()
    return context, page


@pytest.mark.parametrize("width", [390, 1360, 1920])
def test_the_map_shows_every_city_as_printed_and_fits_the_screen(
    width: int, browser: Any, live_stack: ServerThread, api: httpx.Client
) -> None:
    game = create(api, "elcapitan", 2, names=["Anna", "Bruno"], options={"expansions": EXPANSIONS})
    context, page = open_board(browser, live_stack.base, game["game_id"], width)
    try:
        tiles: dict[str, dict[str, float]] = page.evaluate(TILES)
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        assert all(t["right"] <= width for t in tiles.values())
        assert len(tiles) == 12
        assert all(t["sites"] == 12 for t in tiles.values())
        assert tiles["porto"]["harbours"] == 3 and tiles["porto"]["forts"] == 1
        assert all(t["harbours"] == 2 and t["forts"] == 2 for n, t in tiles.items() if n != "porto")
        assert min(t["smallest"] for t in tiles.values()) >= 18  # a site's number stays readable
        # west to east and north to south, as on the sea
        assert tiles["marseille"]["x"] < tiles["venezia"]["x"] < tiles["constantinople"]["x"]
        assert tiles["tanger"]["x"] < tiles["tunis"]["x"] < tiles["alexandria"]["x"]
        assert tiles["marseille"]["y"] < tiles["valencia"]["y"] < tiles["tanger"]["y"]
        assert tiles["constantinople"]["y"] < tiles["athina"]["y"] < tiles["alexandria"]["y"]
        if width > 700:  # the Atlantic lies west; on a phone its tiles make a row of their own
            assert max(tiles[n]["x"] for n in EXPANSIONS) < tiles["valencia"]["x"]
            assert page.locator("#board .ec-pin").count() == 12
        board = page.locator("#board svg")
        site = board.locator('[data-target="site:marseille:6"] title').text_content() or ""
        assert "Marseille, site 6" in site and "dark site" in site
        harbour = board.locator('[data-target="harbour:canarias:1"] title').text_content() or ""
        assert "pirate" in harbour  # the pirate starts on Islas Canarias' second harbour space
        names = board.locator(".card").all_text_contents()
        assert len(names) == 10 and all(" fl" in n for n in names)
    finally:
        context.close()
