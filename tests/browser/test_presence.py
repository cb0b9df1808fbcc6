"""Issue 44 in the browser, at 390 and 1360 px: presence that tells the truth. Ann and Bob sit at an East
India Companies table; each page shows the other online. Bob's browser loses its network: within seconds
his header stops saying "connected" (no frame arrives, so the page says it is offline and reconnects), and
Ann's page shows him offline. His network back, both say so again.

Real pieces: the gateway and its fold worker (``rated_stack``), headless Chromium with its own network
switched off (``BrowserContext.set_offline``)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
import redis

from tests.browser.people import join_from_lobby, person, scrolls_sideways
from tests.browser.rating_scene import TRUSTING
from tests.support.harness import ServerThread
from tests.support.players_stack import rated_stack


@pytest.fixture
def stack(redis_url: str, redis_client: redis.Redis) -> Iterator[ServerThread]:
    with rated_stack(redis_url, bot_delay_s=0.0, limits=TRUSTING) as server:
        yield server


def presence_of(page: Any, seat: int, said: str) -> Any:
    return page.locator(f"li.player[data-seat='{seat}'] .presence[data-presence='{said}']")


@pytest.mark.parametrize("width", [390, 1360])
def test_presence_goes_offline_within_seconds_and_comes_back(
    browser: Any, stack: ServerThread, width: int
) -> None:
    ann, bob = person(browser, stack.base, "Ann", width), person(browser, stack.base, "Bob", width)
    ann.locator("#table-game").select_option("eic")
    ann.locator("#table-seats").select_option("2")
    ann.locator("#open-table button[type=submit]").click()
    join_from_lobby(ann, bob, "East India")
    presence_of(ann, 1, "online").wait_for(timeout=15_000)
    presence_of(bob, 0, "online").wait_for(timeout=15_000)
    assert bob.locator("#conn").inner_text() == "connected"
    assert not scrolls_sideways(ann) and not scrolls_sideways(bob)

    bob.context.set_offline(True)
    bob.locator("#conn", has_text=re.compile("offline|reconnecting")).wait_for(timeout=30_000)
    presence_of(ann, 1, "offline").wait_for(timeout=40_000)  # away first, then offline, within seconds
    assert ann.locator("#conn").inner_text() == "connected"  # Ann's own line is fine

    bob.context.set_offline(False)
    bob.locator("#conn", has_text=re.compile("^connected$")).wait_for(timeout=30_000)
    presence_of(ann, 1, "online").wait_for(timeout=30_000)
    assert not scrolls_sideways(ann) and not scrolls_sideways(bob)
    ann.context.close()
    bob.context.close()
