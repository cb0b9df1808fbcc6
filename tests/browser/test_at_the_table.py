"""At the table (issue 36), for each game at 390 and 1360 px: the tab's title says it is your turn, every
place the player must tap is 44 × 44 px at least on a phone, the action bar stays in view after
scrolling, axe-core finds no serious or critical violation, the board's places are reached and chosen
with the keyboard, and others' moves are marked on the board and read out in the live region."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.browser.axe import axe_script, serious_violations
from tests.browser.play import next_step
from tests.browser.waiting import wait_until
from tests.support.client import bearer, create, post_command
from tests.support.harness import ServerThread

KINDS = ("manila", "elcapitan", "eic")
NAMES = ["Anna", "Bruno", "Carla", "Dario"]
TITLES = {"manila": "Manila", "elcapitan": "El Capitán", "eic": "East India Companies"}
OFFERS = "document.querySelector('#board .target.legal') || document.querySelector('#decide button:enabled')"

TAPS = """() => [...document.querySelectorAll('#board .target.legal')].map((n) => {
  const box = n.getBoundingClientRect();
  return {key: n.getAttribute('data-target'), width: box.width, height: box.height};
})"""

BAR = """() => {
  const box = document.querySelector('.action-bar').getBoundingClientRect();
  return {top: box.top, bottom: box.bottom, scrolled: window.scrollY, height: innerHeight};
}"""

STATE = "[document.body.dataset.seq, document.querySelector('#decide').innerText]"
CHANGED = "([seq, text]) => document.body.dataset.seq !== seq || document.querySelector('#decide').innerText !== text"


@pytest.fixture(scope="module")
def axe() -> Iterator[Path]:
    yield axe_script()  # shipped by axe-playwright-python: never skipped


class Table:
    """A 4-player game of people, moved at random over HTTP until the seat to act has places to tap."""

    def __init__(self, api: httpx.Client, kind: str, seed: int) -> None:
        self.api = api
        self.kind = kind
        self.rng = random.Random(seed)
        game = create(api, kind, 4, names=NAMES)
        self.game_id: str = game["game_id"]
        self.tokens: dict[int, str] = {s["seat"]: s["token"] for s in game["seats"]}

    def to_act(self) -> list[int]:
        acting: list[int] = self.api.get(f"/api/games/{self.game_id}").json()["to_act"]
        return acting

    def move(self, seat: int | None = None) -> int:
        """One random legal move of ``seat`` (by default a seat to act, at random); returns the game's
        sequence number after it."""
        seat = self.rng.choice(self.to_act()) if seat is None else seat
        legal = self.api.get(f"/api/games/{self.game_id}/legal", headers=bearer(self.tokens[seat])).json()
        response = post_command(
            self.api, self.game_id, self.tokens[seat], {"command": self.rng.choice(legal)}
        )
        assert response.status_code == 200, response.text
        seq: int = response.json()["seq"]
        return seq

    def link(self, base: str, seat: int | None) -> str:
        return f"{base}/games/{self.game_id}" + ("" if seat is None else f"#token={self.tokens[seat]}")

    def open_with_places(self, page: Any, base: str, moves: int) -> int:
        """``moves`` random moves, then more until the seat to act is offered places on the board; the
        page shows that seat's decision. Returns the seat."""
        for _ in range(moves):
            self.move()
        for _ in range(60):
            seat = self.to_act()[0]
            page.goto("about:blank")
            page.goto(self.link(base, seat))
            wait_until(page, OFFERS)
            if page.locator("#board .target.legal").count():
                return seat
            self.move()
        raise AssertionError("no decision with places on the board in 60 moves")


def check_the_page(page: Any, kind: str, width: int, axe: Path) -> None:
    assert page.title() == f"● Your turn — {TITLES[kind]}"
    if width == 390:
        taps = page.evaluate(TAPS)
        assert taps, "nothing to tap"
        small = [t for t in taps if t["width"] < 44 or t["height"] < 44]
        assert not small, (kind, small[:5])
    page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
    bar = page.evaluate(BAR)
    assert bar["scrolled"] > 0, bar  # the page is taller than the screen, so the bar had to stay
    assert 0 <= bar["top"] <= 12 and bar["bottom"] <= bar["height"], bar
    found = serious_violations(page, axe)
    assert not found, (kind, width, found)


@pytest.mark.parametrize("kind", KINDS)
def test_a_decision_at_390_and_1360_px(
    kind: str, browser: Any, live_stack: ServerThread, api: httpx.Client, axe: Path
) -> None:
    table = Table(api, kind, seed=11)
    for width, moves in ((390, 12), (1360, 3)):
        context = browser.new_context(viewport={"width": width, "height": 800})
        try:
            page = context.new_page()
            table.open_with_places(page, live_stack.base, moves)
            check_the_page(page, kind, width, axe)
        finally:
            context.close()
        # a spectator (a browser that never held a seat's link) is never told it is their turn
        context = browser.new_context(viewport={"width": width, "height": 800})
        try:
            page = context.new_page()
            page.goto(table.link(live_stack.base, None))
            page.locator("#board svg").wait_for()
            assert page.title() == f"{TITLES[kind]} — Harbormaster"
            assert serious_violations(page, axe) == [], (kind, width, "spectator")
        finally:
            context.close()


def test_the_turn_comes_round_announced_marked_and_played_by_keyboard(
    page: Any, live_stack: ServerThread, api: httpx.Client
) -> None:
    """Anna watches the others move: each move is marked on the board and read out; when her turn comes
    the title says so, and she chooses a place on the board with Tab and Enter alone."""
    table = Table(api, "manila", seed=3)
    for _ in range(8):
        table.move()
    anna = next(s for s in range(4) if s not in table.to_act())
    page.goto(table.link(live_stack.base, anna))
    page.locator("#board svg").wait_for()
    assert not page.title().startswith("●")
    # The game's seed is the server's, so the moves before her turn may change no place on the board
    # (bids in the auction); until one has been marked she moves too, over HTTP, and waits again.
    marked, heard, came_round = 0, set(), False
    for _ in range(200):
        if anna in table.to_act():
            wait_until(page, "document.title.startsWith('● Your turn — Manila')")
            if marked and came_round:
                break
            seq = table.move(anna)
            wait_until(page, f"Number(document.body.dataset.seq) >= {seq}")
            came_round = False
            continue
        seq = table.move()
        wait_until(page, f"Number(document.body.dataset.seq) >= {seq}")
        marked += page.locator("#board .last-move").count()
        wait_until(page, "document.getElementById('live').innerText.trim() !== ''")
        heard.add(page.locator("#live").inner_text())
        came_round = True
    assert marked > 0
    assert anna in table.to_act() and came_round
    assert any(name in text for text in heard for name in NAMES), heard  # others' moves in words
    wait_until(page, "document.getElementById('live').innerText.includes('Your turn')")
    # until she is offered places on the board, she clicks buttons (a bid, a pass) and the others move
    for _ in range(60):
        if anna not in table.to_act():
            seq = table.move()
            wait_until(page, f"Number(document.body.dataset.seq) >= {seq}")
            continue
        step = next_step(page, table.rng)
        if step["board"]:
            break
        before = page.evaluate(STATE)
        page.mouse.click(step["x"], step["y"])
        wait_until(page, CHANGED, before)
    offered = page.locator("#board .target.legal")
    assert offered.count() == page.locator("#board .target.legal[tabindex='0'][role='button']").count()
    for _ in range(80):
        page.keyboard.press("Tab")
        if page.evaluate("!!document.activeElement.closest('#board .target.legal')"):
            break
    # its name (its hover text) says what choosing it does, then what the place is
    name = page.evaluate("(document.activeElement.querySelector(':scope > title') || {}).textContent || ''")
    words = page.locator("#decide details.in-words button").all_text_contents()
    assert any(name.startswith(word + " — ") for word in words), (name, words)
    before = page.evaluate(STATE)
    page.keyboard.press("Enter")
    wait_until(page, CHANGED, before)


def test_a_bid_above_cash_warns_and_own_shares_are_named(
    page: Any, live_stack: ServerThread, api: httpx.Client
) -> None:
    """Manila: the bid control says when a bid means pledging shares; the players' panel names one's own
    shares; the sound toggle is kept; an unknown game says so."""
    table = Table(api, "manila", seed=1)
    seat = table.to_act()[0]
    page.goto(table.link(live_stack.base, seat))
    control = page.locator("#decide .number")
    control.wait_for()
    cash = api.get(f"/api/games/{table.game_id}", headers=bearer(table.tokens[seat])).json()["view"]
    mine = cash["players"][seat]
    assert (
        f"shares: {', '.join(mine['shares'])}"
        in page.locator(f"#player-list [data-seat='{seat}']").inner_text()
    )
    highest = int(control.locator("small").inner_text().split("–")[1])
    assert highest > mine["cash"]  # shares may be pledged to pay
    go = control.locator(".num-go")
    assert "more than your cash" not in (go.inner_text())
    for _ in range(highest):
        control.locator(".plus").click()
    assert f"{highest - mine['cash']} pesos more than your cash: you pledge" in go.inner_text()
    page.click("#sound")
    page.reload()
    page.locator("#sound").wait_for()
    assert page.locator("#sound").get_attribute("aria-pressed") == "true"
    page.goto(f"{live_stack.base}/games/no-such-game-here")
    page.locator("#no-such-game").wait_for()
    assert page.title() == "No such game — Harbormaster"
