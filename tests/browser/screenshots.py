"""Screenshots of each game's board mid-game, as a player and as a spectator, at 1360 and 390 px.

``python -m tests.browser.screenshots`` starts its own Redis and stack, plays each game some way with
random legal moves over HTTP, and writes ``docs/screenshots/<game>-<player|spectator>-<width>.png`` and
the lobby. Needs Chromium (``HARBORMASTER_CHROMIUM`` or ``chromium`` on PATH) and playwright.
"""

from __future__ import annotations

import contextlib
import sys
import tempfile
from pathlib import Path
from typing import Any

import httpx
from playwright.sync_api import sync_playwright

from services.redis_launcher import EmbeddedRedis
from tests.browser.conftest import CHROMIUM
from tests.gateway.client import create, play_random
from tests.gateway.harness import running_stack

SHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
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


def _shoot(browser: Any, url: str, width: int, target: Path) -> None:
    context = browser.new_context(viewport={"width": width, "height": 900}, device_scale_factor=1)
    try:
        page = context.new_page()
        page.goto(url)
        page.locator("#board svg, #create").first.wait_for()
        page.wait_for_timeout(600)  # the legal moves arrive after the board: let them be highlighted
        page.screenshot(path=str(target), full_page=True)
    finally:
        context.close()


def main() -> int:
    SHOTS.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as folder:
        server = EmbeddedRedis(Path(folder))
        server.start()
        try:
            with (
                running_stack(server.url, bot_delay_s=0.0) as stack,
                httpx.Client(base_url=stack.base, timeout=60) as api,
                sync_playwright() as playwright,
            ):
                browser = playwright.chromium.launch(
                    executable_path=CHROMIUM, headless=True, args=["--no-sandbox"]
                )
                for kind in ("manila", "elcapitan", "eic"):
                    game_id, token = _mid_game(api, kind)
                    for width in WIDTHS:
                        _shoot(
                            browser,
                            f"{stack.base}/games/{game_id}#token={token}",
                            width,
                            SHOTS / f"{kind}-player-{width}.png",
                        )
                        _shoot(
                            browser,
                            f"{stack.base}/games/{game_id}",
                            width,
                            SHOTS / f"{kind}-spectator-{width}.png",
                        )
                for width in WIDTHS:
                    _shoot(browser, f"{stack.base}/", width, SHOTS / f"lobby-{width}.png")
                browser.close()
        finally:
            server.stop()
    sys.stdout.write(f"screenshots written to {SHOTS}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
