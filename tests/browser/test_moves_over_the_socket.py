"""The web client sends a seat's moves over the game's WebSocket (issue 19), not one HTTP request each."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import redis

from tests.browser.play import Clicks, take_one_step
from tests.support.client import create
from tests.support.harness import ServerThread, running_stack


@pytest.fixture
def quick_stack(redis_url: str, redis_client: redis.Redis) -> Iterator[ServerThread]:
    with running_stack(redis_url, bot_delay_s=0.0) as server:
        yield server


def test_a_persons_moves_travel_over_the_games_websocket(page: Any, quick_stack: ServerThread) -> None:
    posts: list[str] = []
    page.on("request", lambda r: posts.append(r.url) if r.method == "POST" and "/commands" in r.url else None)
    frames: list[str] = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda payload: frames.append(str(payload))))
    with httpx.Client(base_url=quick_stack.base, timeout=30) as api:
        game = create(api, "manila", 3, bots={"1": "greedy", "2": "random"})
        gid = game["game_id"]
        page.goto(f"{quick_stack.base}/games/{gid}#token={game['seats'][0]['token']}")
        page.locator("#board svg.board-manila").wait_for()
        rng, clicks = random.Random(3), Clicks()
        while _moves_of_seat_0(api, gid) < 3:
            if not take_one_step(page, rng, clicks):
                page.wait_for_timeout(100)
    # Playwright hands over the page's sent frames while it talks to the browser: give it the time
    for _ in range(600):
        if sum('"type":"command"' in frame for frame in frames) >= 3:
            break
        page.wait_for_timeout(100)
    assert posts == [], "no move was sent over HTTP"
    assert sum('"type":"command"' in frame for frame in frames) >= 3


def _moves_of_seat_0(api: httpx.Client, game_id: str) -> int:
    events = api.get(f"/api/games/{game_id}/events").json()["events"]
    return len({e["command_id"] for e in events if e["seat"] == 0})
