"""Every public fact on screen (issue 44.4 and 44.6): El Capitán's hands and loans and East India Companies'
shares, which the rulebooks keep open, are in the players' panel for every viewer (a seated player and a
spectator alike), at 390 and 1360 px, inside the screen's width (no sideways panning to read them); every
button is 44 × 44 px at least on a phone; axe-core finds no serious or critical violation there."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from tests.browser.axe import serious_violations
from tests.browser.test_at_the_table import NAMES, Table
from tests.browser.waiting import wait_until
from tests.support.client import bearer, post_command
from tests.support.harness import ServerThread

HOLDINGS = """() => [...document.querySelectorAll('#player-list [data-holdings]')].map((n) => {
  n.scrollIntoView({block: 'center'});
  const box = n.getBoundingClientRect();
  return {seat: Number(n.dataset.holdings), text: n.innerText, left: box.left, right: box.right,
          width: box.width, height: box.height};
})"""

SMALL_BUTTONS = """() => [...document.querySelectorAll('button, [role=button], select, input:not([type=hidden]), summary')]
  .filter((n) => n.getClientRects().length && getComputedStyle(n).visibility !== 'hidden')
  .map((n) => ({html: n.outerHTML.slice(0, 90),
    box: (n.matches('[type=checkbox], [type=radio]') && n.closest('label') || n).getBoundingClientRect()}))
  .filter(({box}) => box.width < 44 || box.height < 44)
  .map(({html, box}) => ({html, width: box.width, height: box.height}))"""


def spectator_view(api: httpx.Client, game_id: str) -> dict[str, Any]:
    view: dict[str, Any] = api.get(f"/api/games/{game_id}").json()["view"]
    return view


def someone_holds(kind: str) -> Callable[[dict[str, Any]], bool]:
    if kind == "elcapitan":
        return lambda view: sum(len(p["hand"]) for p in view["players"]) >= 2
    return lambda view: sum(sum(p["shares"]) for p in view["players"]) >= 1


def expected(kind: str, view: dict[str, Any], seat: int) -> list[str]:
    """What the panel must say of ``seat``, read from the spectator's view (the rulebook's open facts)."""
    player = view["players"][seat]
    if kind == "elcapitan":
        loans = [f"{loan['amount']} fl" for loan in player["loans"]]
        return [f"Cards: {'none' if not player['hand'] else ''}", *loans]
    owner = [
        f"{NAMES[c]}'s company" if c < len(NAMES) else "the neutral company"
        for c in range(len(player["shares"]))
    ]
    start = 2 - player["pledged"]  # domain/eic/data.py START_SHARES
    return [f"{start} start share", *(f"{n} of {owner[c]}" for c, n in enumerate(player["shares"]) if n)]


def card_count(text: str) -> int:
    cards = text.split("Cards: ", 1)[1].split("\n", 1)[0].strip()
    return 0 if cards == "none" else len(cards.split(", "))


def move_preferring(table: Table, word: str) -> None:
    """One legal move of a seat to act, one naming ``word`` (a share's purchase) when there is one; waits
    while no seat is to act (the neutral company's automatic steps)."""
    acting = table.to_act()
    if not acting:
        return
    seat = table.rng.choice(acting)
    legal = table.api.get(f"/api/games/{table.game_id}/legal", headers=bearer(table.tokens[seat])).json()
    if not legal:
        return
    wanted = [c for c in legal if word in json.dumps(c)]
    command = table.rng.choice(wanted or legal)
    response = post_command(table.api, table.game_id, table.tokens[seat], {"command": command})
    assert response.status_code == 200, response.text


def play_until_held(table: Table, kind: str) -> dict[str, Any]:
    held = someone_holds(kind)
    for _ in range(400):
        view = spectator_view(table.api, table.game_id)
        if held(view):
            return view
        move_preferring(table, "BuyShare")
    raise AssertionError(f"{kind}: nobody held anything in 400 moves")


@pytest.mark.parametrize("kind", ["elcapitan", "eic"])
def test_open_holdings_for_players_and_spectators(
    kind: str, browser: Any, live_stack: ServerThread, api: httpx.Client
) -> None:
    table = Table(api, kind, seed=5)
    view = play_until_held(table, kind)
    seats = len(table.tokens)
    for width in (390, 1360):
        seen: dict[int | None, list[str]] = {}
        for viewer in (None, 0):
            context = browser.new_context(viewport={"width": width, "height": 800})
            try:
                page = context.new_page()
                page.goto(table.link(live_stack.base, viewer))
                wait_until(page, f"document.body.dataset.seq === '{view_seq(api, table.game_id)}'")
                rows = page.evaluate(HOLDINGS)
                assert [r["seat"] for r in rows] == list(range(seats)), rows
                for row in rows:
                    assert row["height"] > 0 and row["left"] >= 0 and row["right"] <= width, (width, row)
                    for words in expected(kind, view, row["seat"]):
                        assert words in row["text"], (kind, width, viewer, words, row["text"])
                    if kind == "elcapitan":
                        assert card_count(row["text"]) == len(view["players"][row["seat"]]["hand"]), row
                if width == 390:
                    assert page.evaluate(SMALL_BUTTONS) == [], (kind, viewer)
                    assert page.evaluate("document.documentElement.scrollWidth") <= width
                assert serious_violations(page) == [], (kind, width, viewer)
                seen[viewer] = [r["text"] for r in rows]
            finally:
                context.close()
        assert seen[None] == seen[0]  # a spectator is shown exactly what a seated player is


def view_seq(api: httpx.Client, game_id: str) -> int:
    seq: int = api.get(f"/api/games/{game_id}").json()["seq"]
    return seq


FACTS = """() => { const n = document.querySelector('#decide .facts');
  if (!n) return null;
  const box = n.getBoundingClientRect();
  return {text: n.innerText, left: box.left, right: box.right, height: box.height}; }"""


def facts_expected(kind: str, view: dict[str, Any]) -> list[str]:
    """Numbers the decision needs that a phone's zoomed board puts off the screen (issue 44.6)."""
    if kind == "eic":
        return [f"{value} (div " for value in view["share_values"]]
    if kind == "elcapitan":
        return [
            "Destinations",
            "Interconnections",
            "Your money",
            f"{view['players'][view['viewer']]['money']} fl",
        ]
    track = [0, 5, 10, 20, 30]  # services/gateway/static/js/boards/manila.js TRACK
    goods = ["jade", "silk", "nutmeg", "ginseng"]
    market = " · ".join(f"{g} {track[i]}" for g, i in zip(goods, view["market"], strict=True))
    return ["pirates", "small pilot", "big pilot", "insurance", market]


@pytest.mark.parametrize("kind", ["manila", "elcapitan", "eic"])
def test_the_decisions_numbers_beside_the_choice_on_a_phone(
    kind: str, browser: Any, live_stack: ServerThread, api: httpx.Client
) -> None:
    table = Table(api, kind, seed=17)
    for width in (390, 1360):
        context = browser.new_context(viewport={"width": width, "height": 800})
        try:
            page = context.new_page()
            seat = table.open_with_places(page, live_stack.base, moves=6 if width == 390 else 0)
            facts = page.evaluate(FACTS)
            assert facts is not None, kind
            if width == 1360:  # the whole board is on a wide screen: the words are not repeated
                assert facts["height"] == 0, facts
                continue
            view = api.get(f"/api/games/{table.game_id}", params={"token": table.tokens[seat]}).json()["view"]
            assert facts["left"] >= 0 and facts["right"] <= width, facts
            for words in facts_expected(kind, view):
                assert words in facts["text"], (kind, words, facts["text"])
            if kind == "elcapitan":
                cards = len(view["destinations"]["display"]) + len(view["interconnections"]["display"])
                assert facts["text"].count(" fl") == cards + 1, facts["text"]  # each card's price, and money
        finally:
            context.close()
