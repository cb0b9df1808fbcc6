"""What each screenshot script starts before it shoots: a Redis of its own in a temporary folder, and a
headless Chromium (``python -m tests.browser.screenshots``, ``screenshots_more``, ``rating_scene``)."""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from playwright.sync_api import sync_playwright

from services.redis_launcher import EmbeddedRedis
from tests.browser.conftest import CHROMIUM

SHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"


@contextlib.contextmanager
def own_redis() -> Iterator[EmbeddedRedis]:
    """A Redis in a temporary folder, stopped and gone afterwards; the shots' folder made."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as folder:
        server = EmbeddedRedis(Path(folder))
        server.start()
        try:
            yield server
        finally:
            server.stop()


@contextlib.contextmanager
def headless_chromium() -> Iterator[Any]:
    """The Chromium the browser tests use, headless, closed afterwards."""
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
        try:
            yield browser
        finally:
            browser.close()
