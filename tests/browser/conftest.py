"""Playwright with Debian's headless Chromium (``/usr/bin/chromium``), against the whole stack."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import redis

from tests.support.harness import ServerThread, running_stack

CHROMIUM = os.environ.get("HARBORMASTER_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One Chromium for a module's tests. Not for the session: while sync Playwright is open, its event loop
    counts as running in the main thread, and every later test on the same pytest worker that calls
    ``asyncio.run`` fails ("cannot be called from a running event loop")."""
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install chromium; .ci/run installs it)")
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="playwright is not installed (pip install playwright)"
    )
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
        yield launched
        launched.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1360, "height": 1000})
    opened = context.new_page()
    yield opened
    context.close()


@pytest.fixture
def live_stack(redis_url: str, redis_client: redis.Redis) -> Iterator[ServerThread]:
    """Gateway, fold worker and bots moving every 0.3 s (slow enough to watch)."""
    with running_stack(redis_url, bot_delay_s=0.3) as server:
        yield server


@pytest.fixture
def table_stack(redis_url: str, redis_client: redis.Redis) -> Iterator[ServerThread]:
    """Gateway and fold worker with the rating and clock hooks wired as ``workers/runner.py`` wires them
    (``tests/players/test_resign.Hooks``), bots moving at once, an address's limits trusting (the tests of
    a table's clock and its seats)."""
    from tests.browser.rating_scene import TRUSTING  # here: rating_scene imports this module (CHROMIUM)
    from tests.integration.players.test_resign import Hooks

    with running_stack(
        redis_url, bot_delay_s=0.0, limits=TRUSTING, on_applied=lambda _: Hooks(redis_url)
    ) as server:
        yield server


@pytest.fixture
def api(live_stack: ServerThread) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=live_stack.base, timeout=30) as client:
        yield client
