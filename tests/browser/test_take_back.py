"""Taking back a move in Chromium, on a phone (390 px) and a wall screen (1360 px) (issue 44).

El Capitán: a card bought with one click is taken back with *Undo my move* (reached by the keyboard, a 44 px
target) before the next player acts; the log says so, the moves stay in it struck through, and the card is
back on display. Manila, with "Ask before one-click moves that cannot be undone" on: the placement after which
the dice are rolled asks for Confirm first, and once the dice are rolled nothing is taken back.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import redis

from domain.engine import Rng
from tests.browser.people import scrolls_sideways
from tests.browser.waiting import wait_until
from tests.support.client import bearer, create, post_command
from tests.support.harness import ServerThread, running_stack

WIDTHS = [390, 1360]
WAIT_MS = 60_000  # generous: a loaded 2-core machine


@pytest.fixture
def quick_stack(redis_url: str, redis_client: redis.Redis) -> Iterator[ServerThread]:
    """Bots that move at once."""
    with running_stack(redis_url, bot_delay_s=0.0) as server:
        yield server


def open_seat(browser: Any, base: str, game_id: str, token: str, width: int) -> tuple[Any, Any]:
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    page.goto(f"{base}/games/{game_id}#token={token}")
    page.locator("#take-back-setting").wait_for()  # drawn (the Undo row stays hidden until a move)
    return context, page


def box_of(page: Any, selector: str) -> dict[str, float]:
    box: dict[str, float] = page.locator(selector).bounding_box()
    return box


@pytest.mark.parametrize("width", WIDTHS)
def test_el_capitan_a_card_bought_by_one_click_is_taken_back_before_the_next_player_acts(
    width: int, browser: Any, quick_stack: ServerThread
) -> None:
    with httpx.Client(base_url=quick_stack.base, timeout=30) as api:
        game = create(api, "elcapitan", 2, names=["Anna", "Bruno"])
        gid = game["game_id"]
        seat = api.get(f"/api/games/{gid}").json()["to_act"][0]
        token = next(s["token"] for s in game["seats"] if s["seat"] == seat)
        display = api.get(f"/api/games/{gid}", headers=bearer(token)).json()["view"]
        context, page = open_seat(browser, quick_stack.base, gid, token, width)
        try:
            card = page.locator('#board [data-target^="buy:"].legal').first
            card.wait_for(timeout=WAIT_MS)
            bought = (card.get_attribute("data-target") or "").split(":", 1)[1]
            card.click()  # one click buys: no Confirm
            button = page.locator("#take-back")
            button.wait_for(timeout=WAIT_MS)
            box = box_of(page, "#take-back")
            assert box["height"] >= 44 and box["width"] >= 44
            setting = box_of(page, ".ask-one-click")
            assert setting["height"] >= 44
            assert not scrolls_sideways(page)
            hand = api.get(f"/api/games/{gid}", headers=bearer(token)).json()["view"]["players"][seat]["hand"]
            assert bought in hand
            button.focus()
            assert page.evaluate("document.activeElement.id") == "take-back"
            page.keyboard.press("Enter")  # the keyboard's way
            wait_until(
                page,
                "() => document.querySelector('#log').innerText.includes('took back')",
                timeout_ms=WAIT_MS,
            )
            wait_until(page, "() => !document.querySelector('#take-back')", timeout_ms=WAIT_MS)
            assert page.locator("#log .move.taken-back").count() >= 1  # still in the log, struck through
            after = api.get(f"/api/games/{gid}", headers=bearer(token)).json()["view"]
            assert after == display  # the card is back on display, the money back in the purse
            events = api.get(f"/api/games/{gid}/events", headers=bearer(token)).json()["events"]
            assert [e["type"] for e in events[-3:]] == ["MovesBegan", "CardBought", "MovesTakenBack"]
        finally:
            context.close()


def _choose(seat: int, legal: list[Any], pick: Rng) -> Any:
    """Seat 1 wins every auction, so that seat 0 places last in each round, just before the dice."""
    wanted = "Bid" if seat == 1 else "PassBid"
    bidding = [c for c in legal if c["type"] == wanted]
    if bidding:
        return bidding[0]
    return pick.choice([c for c in legal if "Loan" not in c["type"]] or legal)


def _final_turn(api: httpx.Client, gid: str, tokens: dict[int, str], seed: bytes) -> int:
    """Play every seat over HTTP until seat 0's move would roll the dice (its placements are all final);
    returns the position at which the page is to play it."""
    pick = Rng(seed * 32)
    for _ in range(2000):
        state = api.get(f"/api/games/{gid}").json()
        assert state["status"] == "live"
        seat = state["to_act"][0]
        if seat == 0:
            answer = api.get(
                f"/api/games/{gid}/undo", params={"final": "1"}, headers=bearer(tokens[0])
            ).json()
            if any(c["type"] == "PlaceAccomplice" for c in answer["final"]):
                return int(state["seq"])
        legal = api.get(f"/api/games/{gid}/legal", headers=bearer(tokens[seat])).json()
        response = post_command(api, gid, tokens[seat], {"command": _choose(seat, legal, pick)})
        assert response.status_code == 200 and response.json()["status"] == "applied", response.text
    raise AssertionError("seat 0 never came to place before the dice")


@pytest.mark.parametrize("width", WIDTHS)
def test_manila_the_placement_before_the_dice_asks_first_and_nothing_is_taken_back_after_the_roll(
    width: int, browser: Any, quick_stack: ServerThread
) -> None:
    with httpx.Client(base_url=quick_stack.base, timeout=30) as api:
        game = create(api, "manila", 3, names=["Anna", "Bruno", "Carla"])
        gid = game["game_id"]
        tokens = {s["seat"]: s["token"] for s in game["seats"]}
        token = tokens[0]
        context, page = open_seat(browser, quick_stack.base, gid, token, width)
        try:
            page.locator("label.ask-one-click").click()  # the setting, through its 44 px label
            assert page.evaluate("localStorage.getItem('hm-ask-one-click')") == "1"
            seq = _final_turn(api, gid, tokens, bytes([width % 251]))
            wait_until(page, f"() => document.body.dataset.seq === '{seq}'", timeout_ms=WAIT_MS)
            place = page.locator("#board [data-target].legal").first
            place.wait_for(timeout=WAIT_MS)
            place.click()
            page.locator("#decide .final-note").wait_for(timeout=WAIT_MS)  # asked, not played
            assert api.get(f"/api/games/{gid}").json()["seq"] == seq
            page.locator("#confirm").click()
            wait_until(page, f"() => Number(document.body.dataset.seq) > {seq}", timeout_ms=WAIT_MS)
            events = api.get(f"/api/games/{gid}/events", params={"from": seq}, headers=bearer(token)).json()[
                "events"
            ]
            assert "DiceRolled" in [e["type"] for e in events]
            assert page.locator("#take-back").count() == 0
            refused = post_command(api, gid, token, {"command": {"type": "TakeBack"}})
            assert refused.status_code == 409 and refused.json()["code"] == "manila.nothing_to_take_back", (
                refused.text
            )
            assert not scrolls_sideways(page)
        finally:
            context.close()
