"""Shared fixtures: one real Redis per test session (embedded, or ``REDIS_URL``), flushed per test."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

from domain import GAMES, Game
from services import logging as hm_logging
from services import move_path
from services.redis_launcher import EmbeddedRedis
from tests.support.counter_game import GAME as COUNTER
from tests.support.minimal_game import GAME as RACE

# A serve started by a test announces itself in a state folder of the session, never the user's own
# (services/discovery.py); the processes the tests start inherit it.
os.environ["XDG_STATE_HOME"] = tempfile.mkdtemp(prefix="hm-test-state-")
# Nor do their games' archives land in the checkout's .harbormaster, the folder `make run` uses (issue 43):
# a test that needs the default `<data>/archive` names it.
os.environ["HARBORMASTER_ARCHIVE"] = os.path.join(tempfile.mkdtemp(prefix="hm-test-archive-"), "archive")

hm_logging.configure("console", os.environ.get("HARBORMASTER_LOG_LEVEL", "warning"), cache=False)


def pytest_report_header(config: pytest.Config) -> str:
    """Which form of a move's path the tests run (``services/move_path.py``): a stale build is passed over."""
    if not any(move_path.compiled_form(module) for module in move_path.COMPILED):
        return "move path: interpreted (not compiled here)"
    if move_path.interpreted_because is not None:
        return f"move path: interpreted, because {move_path.interpreted_because}"
    return "move path: compiled by mypyc"


TEST_GAMES: dict[str, Game[Any, Any, Any, Any]] = {**GAMES, "race": RACE, "counter": COUNTER}
"""The real games plus the test-only dice race."""


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A Redis of our own for the whole session: ``REDIS_URL`` if set, else an embedded server."""
    url = os.environ.get("REDIS_URL")
    if url:
        # Parallel test processes flush their own database, never each other's.
        worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
        yield f"{url.rstrip('/').rsplit('/', 1)[0] if url.count('/') > 2 else url}/{int(worker[2:] or 0) + 1}"
        return
    server = EmbeddedRedis(Path(tmp_path_factory.mktemp("redis")))
    server.start()
    try:
        yield server.url
    finally:
        server.stop()


@pytest.fixture
def redis_client(redis_url: str) -> Iterator[redis.Redis]:
    """A client on the session's Redis, flushed before and after the test."""
    client = redis.Redis.from_url(redis_url)
    client.flushdb()
    try:
        yield client
    finally:
        client.flushdb()
        client.close()
