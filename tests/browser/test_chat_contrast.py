"""The chat's mute buttons pass axe-core's colour contrast (issue 44.7: faded at 60 % they failed it): two
signed-in people watch a game, one writes, and the other's page, with a mute button beside the line, has
no serious or critical violation at 390 and 1360 px; the button is 44 px tall on the phone."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import redis

from tests.browser.axe import serious_violations
from tests.browser.people import person
from tests.browser.rating_scene import TRUSTING
from tests.support.client import create
from tests.support.harness import ServerThread
from tests.support.players_stack import rated_stack


@pytest.fixture
def stack(redis_url: str, redis_client: redis.Redis) -> Iterator[ServerThread]:
    with rated_stack(redis_url, bot_delay_s=0.0, limits=TRUSTING) as server:
        yield server


def test_the_mute_button_passes_contrast(browser: Any, stack: ServerThread) -> None:
    with httpx.Client(base_url=stack.base, timeout=30) as api:
        game_id = create(api, "manila", 3)["game_id"]
    writer = person(browser, stack.base, "Wren", 1360)
    writer.goto(f"{stack.base}/games/{game_id}")
    for width, reader_name in ((390, "Rhea"), (1360, "Remy")):
        reader = person(browser, stack.base, reader_name, width)
        reader.goto(f"{stack.base}/games/{game_id}")
        reader.locator("#chat-text").wait_for()
        writer.locator("#chat-text").fill(f"hello {reader_name}")
        writer.locator("#chat-form button").click()
        mute = reader.locator(".chat-line[data-author='Wren'] button.mute").last
        mute.wait_for()
        box = mute.bounding_box()
        assert box is not None and (width > 700 or box["height"] >= 44), box
        assert serious_violations(reader) == [], (width, reader_name)
        reader.context.close()
    writer.context.close()
