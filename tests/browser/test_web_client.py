"""The web client in headless Chromium: the lobby's form, a spectator of a live bot game, replay by
move, the final table, and pages that fit a phone and a wall screen."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest

from tests.browser.waiting import wait_until
from tests.support.client import create, play_random
from tests.support.harness import ServerThread


def seq_of(page: Any) -> int:
    return int(page.locator("body").get_attribute("data-seq") or 0)


def test_the_lobby_creates_a_game_with_names_options_and_bots(page: Any, live_stack: ServerThread) -> None:
    page.goto(live_stack.base + "/")
    page.select_option("#game-kind", "manila")
    assert page.locator("#seat-count option").all_inner_texts() == ["3", "4", "5"]
    page.select_option("#seat-count", "3")
    page.locator('#options input[data-option="variant_boarding"]').check()
    names = page.locator('#seats input[name="name"]')
    names.nth(0).fill("Anna")
    names.nth(1).fill("Bruno")
    page.locator('#seats select[name="kind"]').nth(1).select_option("human")
    page.click("#create button[type=submit]")
    links = page.locator("#created a.seat-link")
    links.first.wait_for()
    assert links.count() == 2  # Anna and Bruno; the third seat is a bot
    href = links.first.get_attribute("href") or ""
    token = href.split("#token=")[1]
    assert token not in page.locator("body").inner_text()
    links.first.click()
    page.wait_for_url("**/games/*")
    page.locator("#player-list").wait_for()
    text = page.locator("body").inner_text()
    assert "Anna" in text and "Bruno" in text and "Greedy bot 3" in text
    assert token not in text and token not in page.content()
    game_id = href.split("/games/")[1].split("#")[0]
    assert page.evaluate(f"localStorage.getItem('hm-token-{game_id}')") == token
    assert page.locator("#status").inner_text() == "live"


def test_a_spectator_watches_a_live_bot_game_and_the_board_changes(
    page: Any, live_stack: ServerThread, api: httpx.Client
) -> None:
    game = create(
        api, "manila", 3, names=["Anna", "Bruno", "Carla"], bots={"0": "greedy", "1": "random", "2": "greedy"}
    )
    page.goto(f"{live_stack.base}/games/{game['game_id']}")
    page.locator("#board svg.board-manila").wait_for()
    first, drawn = seq_of(page), page.locator("#board").inner_html()
    wait_until(page, f"Number(document.body.dataset.seq) >= {first + 6}", timeout_ms=30_000)
    assert page.locator("#board").inner_html() != drawn
    log = page.locator("#log").inner_text()
    # players by name, never "seat 1" (a pirate's seat is a place on the board, not a player)
    assert any(name in log for name in ("Anna", "Bruno", "Carla")) and not re.search(r"\bseat \d", log)
    assert page.locator("#seat-info").inner_text() == "You are watching."
    assert page.locator("#decide button").count() == 0


def test_a_finished_game_replays_by_move_with_buttons_slider_and_arrow_keys(
    page: Any, live_stack: ServerThread, api: httpx.Client
) -> None:
    game = create(api, "manila", 3, names=["Anna", "Bruno", "Carla"])
    gid = game["game_id"]
    play_random(api, gid, {s["seat"]: s["token"] for s in game["seats"]}, seed=3)
    events = api.get(f"/api/games/{gid}/events", params={"limit": 5000}).json()["events"]
    ends: dict[str, int] = {}
    for item in events:
        ends[item["command_id"]] = item["seq"]
    move_ends = sorted(ends.values())  # the set-up, then one entry per move
    page.goto(f"{live_stack.base}/games/{gid}")
    page.locator("#outcome").wait_for()
    assert page.locator("#status").inner_text() == "finished"
    assert page.locator("#final-table tr[data-seat]").count() == 3
    table, final = page.locator("#final-table").inner_text(), api.get(f"/api/games/{gid}").json()["view"]
    held = any(player.get("shares") for player in final["players"])  # all may be pledged by the end
    assert table.count("shares") == 3 and ("shares (" in table) == held  # hidden shares shown at the end
    last = len(move_ends) - 1
    assert int(page.locator("body").get_attribute("data-move") or -1) == last
    page.keyboard.press("ArrowLeft")
    wait_until(page, f"document.body.dataset.move === '{last - 1}'")
    assert seq_of(page) == move_ends[last - 1]
    assert page.locator("#status").inner_text().startswith("replay")
    assert page.locator("#outcome").count() == 0
    assert page.locator("#log .move.future").count() >= 1
    page.click("#replay-prev")
    wait_until(page, f"document.body.dataset.move === '{last - 2}'")
    page.locator("#replay").fill("5")
    wait_until(page, "document.body.dataset.move === '5'")
    assert seq_of(page) == move_ends[5]
    assert page.locator("#log .move.current").get_attribute("data-move") == "5"
    page.keyboard.press("ArrowRight")
    wait_until(page, "document.body.dataset.move === '6'")
    page.click("#replay-now")
    wait_until(page, f"document.body.dataset.move === '{last}'")
    assert page.locator("#status").inner_text() == "finished"


# The smallest type a board may show, in CSS pixels once scaled to its panel (a phone's narrow layouts
# draw 500 units wide in larger type; 8 px is what a player can still read on a phone).
SMALLEST_TYPE_PX = 8

FITS = """() => {
  const panel = document.querySelector('.board-panel');
  const board = document.querySelector('#board svg');
  const scale = board.getBoundingClientRect().width / board.viewBox.baseVal.width;
  const sizes = [...board.querySelectorAll('text')].map((t) => parseFloat(getComputedStyle(t).fontSize) * scale);
  return {page: document.documentElement.scrollWidth, panel: panel.scrollWidth, panelWidth: panel.clientWidth,
          board: board.getBoundingClientRect().width, smallest: Math.min(...sizes)};
}"""


@pytest.mark.parametrize("width", [390, 1920])
def test_the_pages_fit_a_phone_and_a_wall_screen(
    width: int, browser: Any, live_stack: ServerThread, api: httpx.Client
) -> None:
    """No page scrolls sideways, and no board pans inside its panel: it scales to the panel's width with
    type large enough to read (El Capitán's type is its own board's affair: only its fit is checked)."""
    context = browser.new_context(viewport={"width": width, "height": 900})
    try:
        page = context.new_page()
        page.goto(live_stack.base + "/")
        page.locator("#create").wait_for()
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        for kind in ("manila", "eic", "elcapitan"):
            game = create(api, kind, 4, names=["Anna", "Bruno", "Carla", "Dario"])
            page.goto(f"{live_stack.base}/games/{game['game_id']}#token={game['seats'][0]['token']}")
            page.locator(f"#board svg.board-{kind}").wait_for()
            # on one's turn the legal moves arrive after the board: then the board may zoom in
            wait_until(page, "!document.title.startsWith('●') || document.querySelector('#decide .decide')")
            if page.locator("#zoom-toggle").is_visible():  # a phone zooms in to tap (test_at_the_table.py)
                page.click("#zoom-toggle")
                page.locator("#board.zoomed").wait_for(state="detached")
            fit = page.evaluate(FITS)
            assert fit["page"] <= width, (kind, fit)
            assert fit["panel"] <= fit["panelWidth"], (kind, fit)
            assert fit["board"] <= fit["panelWidth"], (kind, fit)
            if kind != "elcapitan":
                assert fit["smallest"] >= SMALLEST_TYPE_PX, (kind, fit)
            assert header_rows(page) <= 2, (kind, header_rows(page))
    finally:
        context.close()


HEADER_ROWS = """() => {
  const shown = [...document.querySelectorAll('header > *')].filter((n) => n.getClientRects().length);
  const rows = [];  // each item's vertical span; an item that overlaps a row's span is in that row
  for (const node of shown) {
    const box = node.getBoundingClientRect();
    const row = rows.find((r) => box.top < r.bottom && box.bottom > r.top);
    if (row) (row.top = Math.min(row.top, box.top)), (row.bottom = Math.max(row.bottom, box.bottom));
    else rows.push({top: box.top, bottom: box.bottom});
  }
  return rows.length;
}"""


def header_rows(page: Any) -> int:
    """The rows the page's header takes: a phone's is two at most (the game, its state, the controls)."""
    rows: int = page.evaluate(HEADER_ROWS)
    return rows
