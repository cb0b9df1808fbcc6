"""The web client in headless Chromium: lobby, a live bot game, a move as a seat, a replay, screenshots.

Screenshots of each game's board are written to ``docs/screenshots/`` when
``HARBORMASTER_UPDATE_SCREENSHOTS=1`` (they are checked in), else to the test's temporary folder.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Any

import httpx
import pytest

from domain import GAMES
from tests.gateway.client import bearer, create, play_random, post_command
from tests.gateway.harness import ServerThread

pytestmark = [pytest.mark.browser, pytest.mark.redis]

SHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
SEATS = {"elcapitan": 3, "manila": 4, "eic": 3}


def seq_of(page: Any) -> int:
    return int(page.locator("body").get_attribute("data-seq") or 0)


def test_lobby_lists_live_and_finished_games(page: Any, live_stack: ServerThread, api: httpx.Client) -> None:
    live = create(api, "race", 2)
    done = create(api, "race", 1, options={"goal": 1})
    post_command(api, done["game_id"], done["seats"][0]["token"], {"command": {"type": "Roll"}})
    page.goto(live_stack.base + "/")
    page.locator(f'#live tr[data-game="{live["game_id"]}"]').wait_for()
    page.locator(f'#finished tr[data-game="{done["game_id"]}"]').wait_for()
    if os.environ.get("HARBORMASTER_UPDATE_SCREENSHOTS") == "1":
        page.screenshot(path=str(SHOTS / "lobby.png"), full_page=True)
    page.select_option("#game-kind", "race")
    page.fill("#seat-count", "2")
    page.click("#create button[type=submit]")
    page.locator("#created a.seat-link").first.wait_for()
    assert page.locator("#created a.seat-link").count() == 2
    page.locator("#created a").first.click()
    page.wait_for_url("**/games/*")
    page.locator("#status").wait_for()


def test_a_live_bot_game_updates_on_its_own(page: Any, live_stack: ServerThread, api: httpx.Client) -> None:
    kind = sorted(GAMES)[0] if GAMES else "race"
    seats = SEATS.get(kind, 2)
    game = create(api, kind, seats, bots={str(s): "random" for s in range(seats)})
    page.goto(f"{live_stack.base}/games/{game['game_id']}")
    page.locator("#status").wait_for()
    first = seq_of(page)
    page.wait_for_function(f"Number(document.body.dataset.seq) >= {first + 3}", timeout=20_000)
    assert page.locator("#log div").count() >= 3
    assert page.locator("#conn").inner_text() == "live"


def test_a_seat_holder_plays_a_move(page: Any, live_stack: ServerThread, api: httpx.Client) -> None:
    kind = "elcapitan" if "elcapitan" in GAMES else "race"
    game = create(api, kind, 3)
    gid = game["game_id"]
    state = api.get(f"/api/games/{gid}").json()
    seat = state["to_act"][0]
    token = next(s["token"] for s in game["seats"] if s["seat"] == seat)
    page.goto(f"{live_stack.base}/games/{gid}#token={token}")
    page.locator("#legal button.cmd").first.wait_for()
    before = seq_of(page)
    page.locator("#legal button.cmd").first.click()
    page.locator("#notice .notice.ok").wait_for()
    page.wait_for_function(f"Number(document.body.dataset.seq) > {before}")
    assert api.get(f"/api/games/{gid}").json()["seq"] > before
    assert api.get(f"/api/games/{gid}/legal", headers=bearer(token)).status_code == 200


def test_a_finished_game_is_replayed_with_the_slider(
    page: Any, live_stack: ServerThread, api: httpx.Client
) -> None:
    kind = "elcapitan" if "elcapitan" in GAMES else "race"
    game = create(api, kind, 3)
    gid = game["game_id"]
    play_random(api, gid, {s["seat"]: s["token"] for s in game["seats"]}, seed=11)
    last = api.get(f"/api/games/{gid}").json()["seq"]
    page.goto(f"{live_stack.base}/games/{gid}")
    page.locator("#replay-panel:not([hidden])").wait_for()
    assert page.locator("#outcome").count() == 1
    target = last // 2
    page.locator("#replay").fill(str(target))
    page.wait_for_function(f"Number(document.body.dataset.seq) === {target}")
    assert page.locator("#seq").inner_text() == str(target)
    assert page.locator("#outcome").count() == 0
    if os.environ.get("HARBORMASTER_UPDATE_SCREENSHOTS") == "1":
        page.screenshot(path=str(SHOTS / f"replay-{kind}.png"), full_page=True)
    page.click("#replay-live")
    page.wait_for_function(f"Number(document.body.dataset.seq) === {last}")


@pytest.mark.parametrize("kind", sorted(GAMES))
def test_screenshot_of_each_board(
    kind: str, page: Any, live_stack: ServerThread, api: httpx.Client, tmp_path: Path
) -> None:
    game = create(api, kind, SEATS.get(kind, 3))
    gid = game["game_id"]
    tokens = {s["seat"]: s["token"] for s in game["seats"]}
    with contextlib.suppress(AssertionError):  # 40 moves in, the board is well under way
        play_random(api, gid, tokens, seed=5, limit=40)
    page.goto(f"{live_stack.base}/games/{gid}#token={tokens[0]}")
    board = page.locator(f"#board .board-{kind}")
    board.wait_for()
    folder = SHOTS if os.environ.get("HARBORMASTER_UPDATE_SCREENSHOTS") == "1" else tmp_path
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{kind}.png"
    page.screenshot(path=str(target), full_page=True)
    assert target.stat().st_size > 10_000
    assert "renderer failed" not in page.locator("#board").inner_text()
