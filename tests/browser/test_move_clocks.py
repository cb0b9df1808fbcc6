"""Move clocks at the table, in headless Chromium on the real stack: a person in a Manila tournament with a
20-second move limit opens her seat, and her clock counts down (beside the action bar and in the players'
panel), turns into a warning (colour, words, the live region) before the limit, and when she stays silent
the clock plays her default move and the log says so."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import redis

from tests.browser.axe import axe_script, serious_violations
from tests.browser.test_tournament_pages import reconciling
from tests.support.harness import ServerThread, running_stack

LIMIT_S = 20  # the warning starts under 10 s: time enough to load the page and see the clock before it
TRACE = """() => {
  window.clockTrace = [];
  setInterval(() => {
    const mine = document.getElementById("my-clock");
    if (!mine || mine.hidden) return;
    const timedOut = [...document.querySelectorAll("#log .line.timeout")].map((n) => n.textContent);
    window.clockTrace.push({ text: mine.textContent, left: Number(mine.dataset.leftMs),
      warning: mine.classList.contains("warning"), running: mine.classList.contains("running"), timedOut,
      live: document.getElementById("live").textContent });
  }, 100);
}"""


@pytest.fixture
def fast_stack(redis_url: str, redis_client: redis.Redis) -> Iterator[ServerThread]:
    with running_stack(redis_url, bot_delay_s=0.02) as server:
        yield server


def _seconds(text: str) -> int:
    match = re.search(r"(\d+):(\d\d)", text)
    assert match is not None, text
    return int(match[1]) * 60 + int(match[2])


def test_the_clock_counts_down_and_warns_before_the_timeout(
    page: Any, fast_stack: ServerThread, redis_url: str
) -> None:
    spec = {"game": "manila", "entrants": [{"name": "Anna"}], "players": 2, "bots": ["greedy"], "rounds": 1,
            "table_size": 3, "move_limit_s": LIMIT_S, "id": "tclk"}  # fmt: skip
    with httpx.Client(base_url=fast_stack.base, timeout=30) as api:
        created = api.post("/api/tournaments", json=spec)
        assert created.status_code == 201, created.text
        [anna] = created.json()["people"]
        organiser = {"Authorization": f"Bearer {created.json()['organiser_key']}"}
        with reconciling(redis_url, "tclk"):  # what serve does: it also runs the clock every pass
            assert api.post("/api/tournaments/tclk/start", headers=organiser).status_code == 200
            page.goto(f"{fast_stack.base}/games/tclk-r1-t1#token={anna['key']}")
            page.locator("#board svg").wait_for(timeout=60_000)
            page.evaluate(TRACE)
            seat = int(page.locator(".player .tag.you").locator("xpath=..").get_attribute("data-seat"))
            name = page.locator(f".player[data-seat='{seat}'] .who").inner_text()
            row_clock = page.locator(f"[data-clock-seat='{seat}']")
            page.locator("#my-clock.running").wait_for(timeout=60_000)  # her turn: her clock runs

            first = page.locator("#my-clock").inner_text()
            row_first = row_clock.inner_text()
            page.wait_for_timeout(2_500)
            assert _seconds(page.locator("#my-clock").inner_text()) < _seconds(first)  # counting down
            assert _seconds(row_clock.inner_text()) < _seconds(row_first)  # in the players' panel too
            page.locator("#my-clock.warning").wait_for(timeout=LIMIT_S * 1000)
            assert serious_violations(page, axe_script()) == []  # the warning's colours too
            page.locator("#log .line.timeout").first.wait_for(timeout=LIMIT_S * 1000 + 30_000)

            trace = page.evaluate("window.clockTrace")
    running = [t for t in trace if t["running"] and not t["timedOut"]]
    assert running, trace
    assert not running[0]["warning"] and running[0]["left"] > 10_000, running[0]  # no warning at first
    warned = [t for t in running if t["warning"]]
    assert warned, "no warning before the timeout"
    assert 0 < warned[0]["left"] <= 10_000 and "Hurry" in warned[0]["text"], warned[0]
    lefts = [t["left"] for t in running]
    # One move's clock only goes down (a fetch after a frame may move the server's time by a few ms).
    assert all(later <= earlier + 250 for earlier, later in itertools.pairwise(lefts)), lefts
    assert any("seconds left on your clock" in t["live"] for t in warned)  # said in the live region
    line = page.locator("#log .line.timeout").first.inner_text()
    # Her seat's name as the page names it (a tournament's table does not yet carry entrants' names).
    assert line == f"{name} ran out of time: the clock played its default move"
