"""Issue 44 in the browser, at 390 and 1360 px: what happens to a seat is said in the game's log and done by
a control on the page, every step an event of the game's log (``domain/seat_control.py``).

- The table clock hands Bob's seat to the stand-in bot: his page offers "Take my seat back" and both logs say
  so; he takes it back (the button goes, both logs say it); then he resigns, both logs say that too, and Ann's
  players' panel shows his seat as a bot's.
- At a table opened with "the others vote to end it", Bob's time runs out: Ann's page asks her to end the game
  or play on; she ends it, both pages show the final table with Bob last, and the ratings count it his loss.
- While the stand-in holds Bob's seat on his turn (handed over, or after he resigned), his page does not say
  "Your turn" nor offer his moves: it says the stand-in is playing; taken back, the turn is his again.
- Ann votes to play on: the vote's events do not restart the clock of the seat to act (hers): it counts on
  from her turn's start, as the server's clock does (``events/clocks.VOTE_EVENT_TYPES``).
- The final table shows a tie's shared place on each of its rows.

The clock's part after Bob's timeout (``TimeOutSeat``) is sent as its hook sends it behind an applied timeout
(``workers/jobs/clock.seat_after_timeout``): the fold worker applies a timeout only once the log's own times
make it due, ten minutes into a real-time game. Real pieces: the gateway, its fold worker with the rating and
clock hooks wired as ``workers/runner.py`` wires them, headless Chromium."""

from __future__ import annotations

import contextlib
import random
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from events import codec
from events.clocks import seat_clocks
from events.command_ids import timeout_command_id
from tests.browser.people import join_from_lobby, person, scrolls_sideways
from tests.browser.play import Clicks, take_one_step
from tests.integration.players.test_rated_tables import ratings_of
from tests.support.harness import ServerThread
from tests.support.pipeline import services_for
from workers.jobs.clock import seat_after_timeout

WAIT_MS = 20_000  # generous: a loaded 2-core machine


def open_and_join(ann: Any, bob: Any, on_timeout: str) -> str:
    ann.locator("#table-game").select_option("eic")
    ann.locator("#table-seats").select_option("2")
    ann.locator("#table-clock").select_option("rapid")
    ann.locator("#table-timeout").select_option(on_timeout)
    ann.locator("#open-table button[type=submit]").click()
    return join_from_lobby(ann, bob, "East India")


def bobs_time_runs_out(redis_url: str, game_id: str, then: str) -> None:
    """What the clock's hook sends behind Bob's timeout (seat 1)."""
    services = services_for(redis_url)
    loaded = services.store.load(game_id)
    clocks = seat_clocks(services.store.read(game_id))
    clocks.last_command_id = timeout_command_id(loaded.meta.seed, loaded.seq, 1)
    after = seat_after_timeout(loaded, clocks, then)
    assert after is not None
    seat, command, command_id = after
    services.bus.submit(game_id, seat, codec.encode_command(command), command_id, origin="clock")


def log_says(page: Any, text: str) -> None:
    page.locator("#log .line", has_text=text).first.wait_for(timeout=WAIT_MS)


@contextlib.contextmanager
def ann_and_bob_at_a_table(
    browser: Any, base: str, width: int, on_timeout: str
) -> Iterator[tuple[Any, Any, str]]:
    """Ann opens an East India Companies table for two on the rapid clock (``on_timeout``: what becomes of a
    seat whose time runs out), Bob joins it from the lobby; their pages and the game's id. Both pages are
    closed after."""
    ann, bob = person(browser, base, "Ann", width), person(browser, base, "Bob", width)
    try:
        yield ann, bob, open_and_join(ann, bob, on_timeout)
    finally:
        ann.context.close()
        bob.context.close()


def bob_resigns(bob: Any) -> None:
    bob.locator("#resign").click()
    bob.locator("#resign-yes").click()


@pytest.mark.parametrize("width", [390, 1360])
def test_a_seat_handed_to_the_bot_is_taken_back_and_a_resignation_is_in_the_log(
    browser: Any, table_stack: ServerThread, redis_url: str, width: int
) -> None:
    with ann_and_bob_at_a_table(browser, table_stack.base, width, "bot") as (ann, bob, game_id):
        bobs_time_runs_out(redis_url, game_id, "bot")
        back = bob.locator("#take-seat-back")
        back.wait_for(timeout=WAIT_MS)
        assert "a bot plays your seat" in bob.locator("#seat-bot").inner_text()
        box = back.bounding_box()
        assert box is not None and box["height"] >= 44 and box["width"] >= 44  # a finger's target
        for page in (ann, bob):
            log_says(page, "Bob's time ran out: a bot plays the seat")
        back.click()
        bob.locator("#seat-said", has_text="You play your seat again").wait_for(timeout=WAIT_MS)
        for page in (ann, bob):
            log_says(page, "Bob took their seat back from the bot")
        bob.locator("#take-seat-back").wait_for(state="detached", timeout=WAIT_MS)

        bob_resigns(bob)
        bob.locator("#resign-said", has_text="You resigned").wait_for(timeout=WAIT_MS)
        for page in (ann, bob):
            log_says(page, "Bob resigned: a bot plays the seat to the end")
        ann.locator("li.player[data-seat='1'] .presence[data-presence='bot']").wait_for(timeout=WAIT_MS)
        kinds = [e.type for e in services_for(redis_url).store.read(game_id)]
        assert [k for k in kinds if k.startswith("Seat")] == [
            "SeatHandedToBot",
            "SeatTakenBack",
            "SeatResigned",
        ]
        for page in (ann, bob):
            assert not scrolls_sideways(page) and not page.errors, page.errors


def plays_until_to_act(page: Any, base: str, game_id: str, seat: int) -> None:
    """The page's player clicks their decisions (no stand-in moves here: no worker runs its jobs) until
    ``seat`` is to act."""
    rng, clicks = random.Random(7), Clicks()
    while seat not in httpx.get(f"{base}/api/games/{game_id}").json()["to_act"]:
        assert clicks.board + clicks.controls < 40, f"seat {seat} never came to act"
        if not take_one_step(page, rng, clicks):
            page.wait_for_timeout(50)


def stand_in_says(bob: Any, text: str) -> None:
    """Bob's turn line says the stand-in plays his turn; no "Your turn", no move of his on offer."""
    bob.locator("#stand-in-turn", has_text=text).wait_for(timeout=WAIT_MS)
    assert bob.locator("#turn .yours").count() == 0
    assert "your turn" not in (bob.locator("#board").text_content() or "")  # nor the board's own line
    assert bob.locator("#board .target.legal, #decide button.choice").count() == 0
    assert not bob.title().startswith("●")  # the tab does not say it is his turn either


@pytest.mark.parametrize("width", [390, 1360])
def test_the_stand_in_playing_bobs_turn_is_not_his_turn(
    browser: Any, table_stack: ServerThread, redis_url: str, width: int
) -> None:
    with ann_and_bob_at_a_table(browser, table_stack.base, width, "bot") as (ann, bob, game_id):
        plays_until_to_act(ann, table_stack.base, game_id, 1)
        bob.locator("#turn .yours").wait_for(timeout=WAIT_MS)
        bobs_time_runs_out(redis_url, game_id, "bot")
        stand_in_says(bob, "A stand-in bot is playing your turn")
        back = bob.locator("#take-seat-back")  # offered beside it, in the action bar
        back.wait_for(timeout=WAIT_MS)
        back.click()
        bob.locator("#turn .yours").wait_for(timeout=WAIT_MS)  # his own turn again, his moves offered
        bob.locator("#board .target.legal, #decide button.choice").first.wait_for(
            state="attached", timeout=WAIT_MS
        )
        bob_resigns(bob)
        stand_in_says(bob, "You resigned: a stand-in bot is playing your turn")
        assert bob.locator("#take-seat-back").count() == 0  # a resignation is final
        assert not scrolls_sideways(bob) and not bob.errors, bob.errors


@pytest.mark.parametrize("width", [390, 1360])
def test_the_others_vote_to_end_the_game_and_the_absent_player_is_last(
    browser: Any, table_stack: ServerThread, redis_url: str, width: int
) -> None:
    with ann_and_bob_at_a_table(browser, table_stack.base, width, "vote") as (ann, bob, game_id):
        bobs_time_runs_out(redis_url, game_id, "vote")
        ballot = ann.locator("#end-vote")
        ballot.wait_for(timeout=WAIT_MS)
        assert "Bob is placed last" in ballot.inner_text()
        assert bob.locator("#end-vote").count() == 0  # the absent player does not vote
        log_says(ann, "Bob's time ran out: the others vote whether to end the game")
        end = ann.locator("#vote-end")
        box = end.bounding_box()
        assert box is not None and box["height"] >= 44
        end.click()
        for page in (ann, bob):
            page.locator("#final-table").wait_for(timeout=WAIT_MS)
            log_says(page, "The players voted to end the game")
            rows = page.locator("#final-table tr[data-seat]")
            assert rows.nth(rows.count() - 1).get_attribute("data-seat") == "1"  # Bob last
            assert not scrolls_sideways(page) and not page.errors, page.errors
        changes = {r["account"].lower(): r for r in ratings_of(table_stack.base, game_id)["changes"]}
        assert changes["bob"]["abandoned"] and changes["bob"]["place"] > changes["ann"]["place"], changes


def test_a_vote_does_not_restart_the_clock_of_the_seat_to_act(
    browser: Any, table_stack: ServerThread, redis_url: str
) -> None:
    with ann_and_bob_at_a_table(browser, table_stack.base, 390, "vote") as (ann, bob, game_id):
        plays_until_to_act(
            bob, table_stack.base, game_id, 0
        )  # the first player is drawn: Bob's moves first, if his
        bobs_time_runs_out(redis_url, game_id, "vote")
        ann.locator("#vote-on").wait_for(timeout=WAIT_MS)
        before = int(ann.locator("#my-clock").get_attribute("data-left-ms") or 0)
        ann.locator("#vote-on").click()
        log_says(ann, "No majority to end: the game goes on")
        ann.locator("#end-vote").wait_for(
            state="detached", timeout=WAIT_MS
        )  # the clock's answer after the vote
        after = int(ann.locator("#my-clock").get_attribute("data-left-ms") or 0)
        assert 0 < after < before, (before, after)  # counting on, not from the vote's frame again
        times = {e.type: e.ts_ms for e in services_for(redis_url).store.read(game_id)}
        assert (
            list(times)[-2:] == ["EndVoteCast", "EndVoteClosed"]
            and times["EndVoteCast"] > times["EndVoteOpened"]
        )
        clock = httpx.get(f"{table_stack.base}/api/games/{game_id}/clock").json()
        assert (
            clock["last_move_ms"] == times["EndVoteOpened"]
        )  # her turn's start: the hand-over, not the vote


def test_a_tie_shows_its_shared_place_on_each_row(browser: Any, table_stack: ServerThread) -> None:
    """The final table's places (``shell/players.js`` ``placeOf``), read in the page's own module."""
    page = person(browser, table_stack.base, "Ann", 390)
    places = page.evaluate(
        """async () => {
          const { placeOf } = await import("/static/js/shell/players.js");
          const tied = { ranking: [2, 0, 1, 3], scores: [113, 113, 140, 90], winners: [2], tie_break: "shared" };
          const broken = { ...tied, tie_break: "seat 0 before seat 1 on treasury" };
          const row = (o, game) => o.ranking.map((_, i) => placeOf(o, i, game));
          return [row(tied, "manila"), row(broken, "eic"), row({ ...tied, tie_break: "" }, "eic")];
        }"""
    )
    assert places == [[1, 2, 2, 4], [1, 2, 3, 4], [1, 2, 2, 4]]
    page.context.close()
