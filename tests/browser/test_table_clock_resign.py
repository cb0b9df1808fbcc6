"""Issue 44 in the browser, at 390 and 1360 px: Ann opens an East India Companies table with a real-time
clock (10 min + 10 s a move, a bot takes a seat out of time), the lobby lists the clock, Bob joins, and both
game pages show every seat's clock counting down. Bob resigns (asked once more in the page); the stand-in
bot plays his seat while Ann plays on by clicking; then Ann resigns too and the bots finish the game: both
pages show the final table, and the ratings place the one who resigned first last.

Real pieces: the gateway, its fold worker with the rating and clock hooks wired as ``workers/runner.py``
wires them, an rq worker in this process for the stand-in's jobs, headless Chromium."""

from __future__ import annotations

import random
import re
import time
from typing import Any

import httpx
import pytest
from rq import SimpleWorker

from tests.browser.people import join_from_lobby, person, scrolls_sideways
from tests.browser.play import Clicks, finished, take_one_step
from tests.integration.players.test_rated_tables import ratings_of
from tests.support.harness import ServerThread
from tests.support.pipeline import services_for
from workers.jobs.schedule import make_scheduler

CLOCK_TEXT = re.compile(r"^\d+:\d\d")


def resign_in_page(page: Any) -> None:
    page.locator("#resign").click()
    assert "counts as a loss" in page.locator("#resign-box").inner_text()
    page.locator("#resign-yes").click()
    page.locator("#resign-said", has_text="You resigned").wait_for()


@pytest.mark.parametrize("width", [390, 1360])
def test_a_table_clock_shown_to_all_and_resigned_seats_played_by_bots_to_the_end(
    browser: Any, table_stack: ServerThread, redis_url: str, width: int
) -> None:
    ann, bob = (
        person(browser, table_stack.base, "Ann", width),
        person(browser, table_stack.base, "Bob", width),
    )
    ann.locator("#table-game").select_option("eic")
    ann.locator("#table-seats").select_option("2")
    ann.locator("#table-clock").select_option("rapid")
    assert ann.locator("#table-clock-timeout").is_visible()  # what happens when time runs out is asked
    ann.locator("#table-timeout").select_option("bot")
    ann.locator("#open-table button[type=submit]").click()
    row = bob.locator(".table-row", has_text="East India")
    row.wait_for(timeout=10_000)  # the lobby refreshes every 3 s
    assert "10 min + 10 s/move" in row.inner_text() and "a bot takes the seat" in row.inner_text()
    game_id = join_from_lobby(ann, bob, "East India")

    for page in (ann, bob):  # every seat's clock, on every player's page
        for seat in (0, 1):
            clock = page.locator(f"[data-clock-seat='{seat}']")
            clock.wait_for()
            assert CLOCK_TEXT.match(clock.inner_text()), clock.inner_text()
        assert page.locator("#my-clock").inner_text().startswith("Your clock")
        assert not scrolls_sideways(page)

    resign_in_page(bob)
    services = services_for(redis_url)
    scheduler = make_scheduler(services.redis, redis_url, 0.0, services.bus.partitions, ())
    worker = SimpleWorker([scheduler.queue, scheduler.search_queue], connection=services.redis)
    rng, clicks = random.Random(width), Clicks()
    deadline = time.monotonic() + 240  # a stuck table fails with the page's state, never hangs
    while clicks.board + clicks.controls < 12 and not finished(ann):  # Ann plays on against the stand-in
        worker.work(burst=True)
        if not take_one_step(ann, rng, clicks):
            ann.wait_for_timeout(30)
        assert time.monotonic() < deadline, ann.locator("#conn").inner_text()
    if not finished(ann):  # a resigned seat's clock never runs out: the bot plays it
        ann.locator("[data-clock-seat='1']", has_text="bot plays").wait_for()
    if not finished(ann):
        resign_in_page(ann)
    while not (finished(ann) and finished(bob)):  # the bots finish it
        worker.work(burst=True)
        ann.wait_for_timeout(50)
        assert time.monotonic() < deadline + 120, ann.locator("#conn").inner_text()
    for page in (ann, bob):
        page.locator("#final-table").wait_for()
        assert not scrolls_sideways(page) and not page.errors, page.errors
    rows = {r["account"].lower(): r for r in ratings_of(table_stack.base, game_id)["changes"]}
    assert rows["bob"]["abandoned"], rows  # resigned: placed below any who did not (Ann too, if she did)
    assert httpx.get(f"{table_stack.base}/api/games/{game_id}").json()["status"] == "finished"
    ann.context.close()
    bob.context.close()
