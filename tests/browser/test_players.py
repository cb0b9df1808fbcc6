"""Two people find each other and play: both sign up in their own browser, one opens a Manila table with an
open seat (and a greedy bot), the other finds it in the lobby and joins with one click, they chat, the
second signs in on a third browser (another device) and is back in his seat there, they play to the end by
clicking, and both ratings moved and show on the leaderboard."""

from __future__ import annotations

import random
import re
import time
from collections.abc import Iterator
from typing import Any

import pytest
import redis

from tests.browser import people
from tests.browser.play import Clicks, finished, take_one_step
from tests.browser.rating_scene import TRUSTING
from tests.browser.waiting import wait_until
from tests.support.harness import ServerThread
from tests.support.players_stack import rated_stack


@pytest.fixture
def stack(redis_url: str, redis_client: redis.Redis) -> Iterator[ServerThread]:
    with rated_stack(redis_url, bot_delay_s=0.0, limits=TRUSTING) as server:  # X-Forwarded-For believed
        yield server


def person(browser: Any, base: str, name: str, sign: str = "signup") -> Any:
    """A browser of its own (cookies apart), in the lobby, signed up (or in) as ``name``."""
    page = people.person(browser, base, name, height=1000, sign=sign)
    assert name.lower() in page.locator("#signed-in").inner_text().lower()  # names are one in any case
    return page


def play_until(pages: list[Any], done: Any, seed: int, max_clicks: int = 4000) -> Clicks:
    """Each page clicks its person's decisions as they come, until ``done()``."""
    rng, clicks = random.Random(seed), Clicks()
    deadline = time.monotonic() + 300  # a stuck table fails the test with the pages' state, never hangs it
    while not done():
        if not any([take_one_step(page, rng, clicks) for page in pages]):
            pages[0].wait_for_timeout(30)
        assert clicks.board + clicks.controls < max_clicks, "no end in sight"
        assert time.monotonic() < deadline, [p.locator("#conn").inner_text() for p in pages]
    return clicks


def test_two_players_find_each_other_chat_play_manila_and_are_rated(
    browser: Any, stack: ServerThread
) -> None:
    ann, bob = person(browser, stack.base, "Ann"), person(browser, stack.base, "Bob")

    ann.locator("#table-game").select_option("manila")
    ann.locator("#table-seats").select_option("3")
    ann.locator("#table-bots").select_option("1")
    ann.locator("#open-table button[type=submit]").click()
    ann.locator(".table-row").wait_for()
    assert "Seated: Ann + greedy bot" in ann.locator(".table-row").inner_text()

    row = bob.locator(".table-row", has_text="Manila")
    row.wait_for(timeout=10_000)  # the lobby refreshes every 3 s
    assert "1 of 3 seats free" in row.inner_text()
    row.locator("button.join").click()
    bob.wait_for_url(re.compile(r"/games/\w+$"))
    game_id = bob.url.rsplit("/", 1)[1]
    bob.locator("#board svg.board-manila").wait_for()
    assert (
        "You play" in bob.locator("#seat-info").inner_text()
        and "Bob" in bob.locator("#seat-info").inner_text()
    )

    # Ann's lobby sees her table leave the open list and opens its game (it refreshes every 3 s)
    ann.wait_for_url(re.compile(rf"/games/{game_id}$"), timeout=10_000)
    ann.locator("#board svg.board-manila").wait_for()
    assert "Ann" in ann.locator("#seat-info").inner_text()

    ann.locator("#chat-text").fill("good luck, Bob")
    ann.locator("#chat-form button").click()
    bob.locator(".chat-line", has_text="good luck, Bob").wait_for()
    bob.locator("#chat-text").fill("thanks, you too")
    bob.locator("#chat-form button").click()
    ann.locator(".chat-line", has_text="thanks, you too").wait_for()
    ann.locator(".chat-line[data-author='Bob'] button.mute").first.click()  # Ann mutes Bob, for herself
    assert ann.locator(".chat-line", has_text="thanks, you too").is_hidden()
    assert bob.locator(".chat-line", has_text="thanks, you too").is_visible()
    muted = "async () => (await (await fetch('/api/me/muted')).json()).muted"
    deadline = time.monotonic() + 10
    while "Bob" not in ann.evaluate(muted):  # kept with her account (the page tells the server on its own)
        assert time.monotonic() < deadline, "the mute did not reach the account"
        ann.wait_for_timeout(50)
    assert "Bob" not in (
        ann.evaluate("localStorage.getItem('hm-muted')") or ""
    )  # not left for the next person
    _a_guest_mutes_then_signs_up_and_keeps_the_mute(browser, stack.base, game_id, muted)
    tablet = person(browser, stack.base, "ann", sign="signin")  # Ann's other device: Bob is muted there too
    tablet.locator(f"#my-games a[data-game='{game_id}']").click(timeout=10_000)
    tablet.locator(".chat-line", has_text="good luck, Bob").wait_for()
    assert tablet.locator(".chat-line", has_text="thanks, you too").is_hidden()
    tablet.locator("#chat-muted summary").click()
    tablet.locator("#chat-muted .muted-author[data-author='Bob'] button.unmute").click()
    tablet.locator(".chat-line", has_text="thanks, you too").wait_for()  # shown again
    # the page shows the line at once; the account's unmute lands a round trip later
    wait_until(tablet, f"async () => (await ({muted})()).length === 0", timeout_ms=10_000)
    assert tablet.evaluate(muted) == [] and not tablet.errors
    tablet.context.close()

    play_until([ann, bob], lambda: _moves(ann) >= 6, seed=3)
    phone = person(browser, stack.base, "bob", sign="signin")  # another device: the same account
    phone.locator(f"#my-games a[data-game='{game_id}']").click(timeout=10_000)
    phone.locator("#board svg.board-manila").wait_for()
    assert (
        "You play" in phone.locator("#seat-info").inner_text()
        and "Bob" in phone.locator("#seat-info").inner_text()
    )
    assert phone.evaluate("Object.keys(localStorage).filter((k) => k.startsWith('hm-token')).length") == 0
    phone.locator(".chat-line", has_text="good luck, Bob").wait_for()  # the table's chat, kept
    bob.context.close()  # Bob goes on with his phone

    play_until([ann, phone], lambda: finished(ann) and finished(phone), seed=5)
    ann.locator("#final-table").wait_for()

    board = ann.context.new_page()
    deadline = time.monotonic() + 15
    while True:
        board.goto(f"{stack.base}/leaderboards/manila")
        board.locator("#page h1").wait_for()
        if board.locator("#leaderboard tr[data-name]").count() == 2:
            break
        assert time.monotonic() < deadline, "the game was not rated"
        board.wait_for_timeout(200)
    names = board.locator("#leaderboard tr[data-name]").evaluate_all(
        "(rows) => rows.map((r) => r.dataset.name)"
    )
    assert sorted(names) == ["Ann", "Bob"]
    ratings = board.locator("#leaderboard td:nth-child(3)").all_inner_texts()  # the number, moved from 1500
    assert all(not shown.startswith("1500") for shown in ratings), ratings
    board.goto(f"{stack.base}/players/Bob")
    board.locator("section.rating[data-game=manila]").wait_for()
    assert game_id in board.locator("section.rating").inner_text()
    for page in (ann, phone):
        assert not page.errors, page.errors


def _a_guest_mutes_then_signs_up_and_keeps_the_mute(
    browser: Any, base: str, game_id: str, muted: str
) -> None:
    """A spectator's mute is kept in the browser until they sign up; then it moves to the account and
    leaves the browser, so the next person to use it is not muting Bob for them."""
    guest = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    guest.goto(f"{base}/games/{game_id}")
    guest.locator(".chat-line[data-author='Bob'] button.mute").first.click()
    assert guest.locator(".chat-line", has_text="thanks, you too").is_hidden()
    assert "Bob" in (guest.evaluate("localStorage.getItem('hm-muted')") or "")
    guest.goto(f"{base}/")
    people.sign_with_form(guest, "Cat")
    guest.goto(f"{base}/games/{game_id}")
    guest.locator(".chat-line", has_text="good luck, Bob").wait_for()
    deadline = time.monotonic() + 10
    while guest.evaluate(muted) != ["Bob"]:  # the page moves the browser's mutes to the account
        assert time.monotonic() < deadline, "the guest's mute did not reach the account"
        guest.wait_for_timeout(50)
    assert guest.locator(".chat-line", has_text="thanks, you too").is_hidden()
    deadline = time.monotonic() + 10
    while "Bob" in (guest.evaluate("localStorage.getItem('hm-muted')") or ""):
        assert time.monotonic() < deadline, "the moved mute stayed in the browser"
        guest.wait_for_timeout(50)
    guest.context.close()


def _moves(page: Any) -> int:
    return int(page.evaluate("document.querySelectorAll('#log .line').length"))


def test_start_now_opens_the_started_game_for_everyone_seated(browser: Any, stack: ServerThread) -> None:
    """The creator of a table with a seat still free starts it early ("Start now") and is taken to the
    game, seated; so is the player who joined, whose lobby sees the table leave the open list (before, he
    stayed in the lobby: only the click that started the game heard its id)."""
    ann, bob = person(browser, stack.base, "Ann"), person(browser, stack.base, "Bob")
    ann.locator("#table-game").select_option("manila")
    ann.locator("#table-seats").select_option("4")
    ann.locator("#table-bots").select_option("1")
    ann.locator("#open-table button[type=submit]").click()
    row = bob.locator(".table-row", has_text="Manila")
    row.wait_for(timeout=10_000)
    row.locator("button.join").click()
    row.locator("button.join", has_text="seated").wait_for()  # one seat still free: no game yet
    ann.locator(".table-row", has_text="Bob").wait_for(timeout=10_000)
    ann.locator(".table-row button.start").click()
    ann.wait_for_url(re.compile(r"/games/\w+$"), timeout=10_000)
    game_id = ann.url.rsplit("/", 1)[1]
    ann.locator("#board svg.board-manila").wait_for()
    assert "You play" in ann.locator("#seat-info").inner_text()
    bob.wait_for_url(re.compile(rf"/games/{game_id}$"), timeout=10_000)  # the lobby refreshes every 3 s
    bob.locator("#board svg.board-manila").wait_for()
    assert "You play" in bob.locator("#seat-info").inner_text()
    assert ann.errors == [] and bob.errors == []
