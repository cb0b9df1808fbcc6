"""Screenshots of each game's board mid-game, as a player and as a spectator, at 1360 and 390 px.

``python -m tests.browser.screenshots`` starts its own Redis and stack, plays each game some way with
random legal moves over HTTP, and writes ``docs/screenshots/<game>-<player|spectator>-<width>.png``, the
lobby, a player's *Fair play* disclosure opened (``receipts-<width>.png``), and a bot tournament in its second
round (``tournaments-<width>.png``, ``tournament-<width>.png``); ``… screenshots tournaments`` (or ``games``,
``receipts``, or a game's kind) takes only those. Needs
Chromium (``HARBORMASTER_CHROMIUM`` or ``chromium`` on PATH) and playwright.
"""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import redis

from events.tlog.note import Signer
from services import tournament_service as service
from tests.browser.shooting import SHOTS, headless_chromium, own_redis
from tests.support.client import create, play_random
from tests.support.harness import running_stack
from tests.support.pipeline import services_for
from workers.log_sequencer import LogSequencer

NAMES = ["Anna", "Bruno", "Carla", "Dario"]
MOVES = {"manila": 45, "elcapitan": 60, "eic": 60}
WIDTHS = (1360, 390)


def _mid_game(api: httpx.Client, kind: str) -> tuple[str, str]:
    """A 4-player game some moves in; returns its id and the token of a seat that is to act."""
    game = create(api, kind, 4, names=NAMES)
    tokens = {s["seat"]: s["token"] for s in game["seats"]}
    with contextlib.suppress(AssertionError):  # the limit reached: the game is well under way
        play_random(api, game["game_id"], tokens, seed=5, limit=MOVES.get(kind, 40))
    to_act = api.get(f"/api/games/{game['game_id']}").json()["to_act"]
    return game["game_id"], tokens[to_act[0] if to_act else 0]


def _tournament_mid_way(api: httpx.Client, url: str) -> str:
    """A 10-player Manila Swiss with round 1 closed and round 2 under way (the reconciler closes rounds
    here, as ``serve`` does); returns its id."""
    spec = {"game": "manila", "players": 10, "table_size": 4, "rounds": 3, "bots": ["greedy", "random"],
            "move_limit_s": 60, "id": "harbour-cup"}  # fmt: skip
    key = api.post("/api/tournaments", json=spec).json()["organiser_key"]
    started = api.post("/api/tournaments/harbour-cup/start", headers={"Authorization": f"Bearer {key}"})
    assert started.status_code == 200
    services = services_for(url)
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        state = service.reconcile(services, url, "harbour-cup")
        if len(state.rounds) >= 2:
            break
        time.sleep(0.3)
    return "harbour-cup"


def _shoot(browser: Any, url: str, width: int, target: Path, ready: str = "#board svg, #create") -> None:
    context = browser.new_context(viewport={"width": width, "height": 900}, device_scale_factor=1)
    try:
        page = context.new_page()
        page.goto(url)
        page.locator(ready).first.wait_for()
        page.wait_for_timeout(600)  # the legal moves arrive after the board: let them be highlighted
        page.screenshot(path=str(target), full_page=True)
    finally:
        context.close()


def _games(browser: Any, api: httpx.Client, base: str, kinds: tuple[str, ...] = tuple(MOVES)) -> None:
    for kind in kinds:
        game_id, token = _mid_game(api, kind)
        for width in WIDTHS:
            _shoot(
                browser, f"{base}/games/{game_id}#token={token}", width, SHOTS / f"{kind}-player-{width}.png"
            )
            _shoot(browser, f"{base}/games/{game_id}", width, SHOTS / f"{kind}-spectator-{width}.png")
    if len(kinds) < len(MOVES):
        return
    for width in WIDTHS:
        _shoot(browser, f"{base}/", width, SHOTS / f"lobby-{width}.png")


def _receipts(browser: Any, api: httpx.Client, base: str, url: str) -> None:
    """A player's *Fair play* disclosure opened mid-game, with the log's receipt (a sequencer runs meanwhile,
    as under ``serve``)."""
    sequencer = LogSequencer(
        redis.Redis.from_url(url), Signer.generate("harbormaster.example/log"), interval_s=0.2
    )
    thread = threading.Thread(target=sequencer.run, daemon=True)
    thread.start()
    try:
        _disclosures(browser, base, *_mid_game(api, "manila"))
    finally:
        sequencer.stopping.set()
        thread.join(timeout=15)


def _disclosures(browser: Any, base: str, game_id: str, token: str) -> None:
    for width in WIDTHS:
        context = browser.new_context(viewport={"width": width, "height": 900}, device_scale_factor=1)
        try:
            page = context.new_page()
            page.goto(f"{base}/games/{game_id}#token={token}")
            page.locator("#audit summary").click()
            page.locator("#audit:not([data-covered='0'])").wait_for(timeout=30_000)
            page.wait_for_timeout(600)
            page.screenshot(path=str(SHOTS / f"receipts-{width}.png"), full_page=True)
        finally:
            context.close()


def _tournaments(browser: Any, api: httpx.Client, base: str, url: str) -> None:
    tid = _tournament_mid_way(api, url)
    ready = "#standings, .tournament-row"
    for width in WIDTHS:  # first, while round 2's games are still being played
        _shoot(browser, f"{base}/tournaments/{tid}", width, SHOTS / f"tournament-{width}.png", ready)
    for width in WIDTHS:
        _shoot(browser, f"{base}/tournaments", width, SHOTS / f"tournaments-{width}.png", ready)


def main(argv: list[str]) -> int:
    """All screenshots; ``games`` or ``tournaments`` as the argument takes only those, a game's kind
    (``manila``, ``elcapitan``, ``eic``) only that game's board."""
    only = argv[0] if argv else None
    with (
        own_redis() as server,
        running_stack(server.url, bot_delay_s=0.0) as stack,
        httpx.Client(base_url=stack.base, timeout=60) as api,
        headless_chromium() as browser,
    ):
        if only in (None, "games"):
            _games(browser, api, stack.base)
        if only in MOVES:
            _games(browser, api, stack.base, (only,))
        if only in (None, "receipts"):
            _receipts(browser, api, stack.base, server.url)
        if only in (None, "tournaments"):
            _tournaments(browser, api, stack.base, server.url)
    sys.stdout.write(f"screenshots written to {SHOTS}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
