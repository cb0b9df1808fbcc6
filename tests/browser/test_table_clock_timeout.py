"""Issue 44 in the browser, at 390 and 1360 px: Bob closes his browser in a real-time table game (10 min +
10 s a move, a bot takes a seat out of time). When his time has run out the clock plays his default move
and the stand-in bot takes his seat; Ann's page says so beside his seat, and she plays on by clicking to the
end of the game against the bot. The rating places Bob below her.

The clock's "now" is a parameter of its claim: the test claims Bob's timeout at a moment ten minutes after
his turn began instead of waiting ten minutes (the fold worker's hook armed the same deadline; the watcher
would claim it then). Real pieces: the gateway, its fold worker with the rating and clock hooks wired as
``workers/runner.py`` wires them, an rq worker in this process for the stand-in's jobs, headless Chromium."""

from __future__ import annotations

import random
import time
from typing import Any

import pytest
from rq import SimpleWorker

from events.store import now_ms
from tests.browser.people import join_from_lobby, person, scrolls_sideways
from tests.browser.play import Clicks, finished, take_one_step
from tests.integration.players.test_rated_tables import ratings_of
from tests.support.harness import ServerThread
from tests.support.pipeline import services_for
from workers.jobs.clock import claim_timeouts
from workers.jobs.clock_due import GameClocks
from workers.jobs.schedule import make_scheduler

TEN_MINUTES = 600_000


@pytest.mark.parametrize("width", [390, 1360])
def test_a_player_who_closes_the_browser_is_replaced_by_a_bot_and_the_game_finishes(
    browser: Any, table_stack: ServerThread, redis_url: str, width: int
) -> None:
    ann, bob = (
        person(browser, table_stack.base, "Ann", width),
        person(browser, table_stack.base, "Bob", width),
    )
    ann.locator("#table-game").select_option("eic")
    ann.locator("#table-seats").select_option("2")
    ann.locator("#table-clock").select_option("rapid")
    ann.locator("#open-table button[type=submit]").click()
    game_id = join_from_lobby(ann, bob, "East India")
    bob.context.close()  # Bob is gone

    services = services_for(redis_url)
    clock = GameClocks(services.redis)(game_id)
    assert clock is not None and clock.stood_in
    scheduler = make_scheduler(services.redis, redis_url, 0.0, services.bus.partitions, ())
    worker = SimpleWorker([scheduler.queue, scheduler.search_queue], connection=services.redis)
    rng, clicks = random.Random(width), Clicks()
    timed_out = False
    deadline = time.monotonic() + 300  # a stuck table fails with the page's state, never hangs
    while not finished(ann):
        # a cold load folds the whole game: only while Bob's turn is awaited (issue 46)
        loaded = None if timed_out else services.store.load(game_id)
        if loaded is not None and 1 in loaded.game.to_act(loaded.state):  # Bob's turn: his time runs out
            later = now_ms() + TEN_MINUTES + 1
            timed_out = bool(
                claim_timeouts(services.store, services.bus, [game_id], now_ms=later, clock=clock)
            )
            assert timed_out
            ann.locator("[data-clock-seat='1']", has_text="bot plays").wait_for(timeout=15_000)
        if scheduler.queue.count or scheduler.search_queue.count:  # a burst on empty queues costs as much
            worker.work(burst=True)  # the stand-in's turns, enqueued by the clock hook
        if not take_one_step(ann, rng, clicks):
            ann.wait_for_timeout(30)
        assert time.monotonic() < deadline, ann.locator("#conn").inner_text()
    ann.locator("#final-table").wait_for()
    assert timed_out and not scrolls_sideways(ann) and not ann.errors, ann.errors
    records = [r for r in services.store.records(game_id) if r.status == "applied" and r.seat == 1]
    origins = [r.origin for r in records]
    assert "clock" in origins and "bot" in origins  # his timeout, then the stand-in's moves
    rows = {r["account"].lower(): r for r in ratings_of(table_stack.base, game_id)["changes"]}
    assert rows["bob"]["abandoned"] and not rows["ann"]["abandoned"], rows
    assert rows["ann"]["place"] < rows["bob"]["place"]
    ann.context.close()
