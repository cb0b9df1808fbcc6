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
from tests.support import levels
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


# --- test levels: a test's level is its folder (tests/README.md; tests/support/levels.py) -------------------
# `tests/unit` starts nothing and is left unmarked; every test elsewhere is marked `redis` (and `browser` or
# `journey` by its folder), so a marker cannot be forgotten (issue 46: three were). A unit test that asks for a
# Redis or starts a process is refused at collection, naming why; and one that starts a Redis anyway through a
# helper fails at once (`_no_redis_unmarked`).
TESTS = levels.TESTS

REDIS_CONTRACT = levels.REDIS_CONTRACT


SLOW_FIRST = (
    "journey",
    "browser/test_play_by_clicking.py",
    "unit/domain/elcapitan/test_properties.py",
    "browser",
    "unit/domain/elcapitan/test_pirate_cards.py",
    "unit/contract/test_bounded_rules.py",
    "unit/domain/tournament/test_pairing.py",
    "unit/domain/tournament/test_round_robin.py",
    "integration/serve/test_service_home.py",
    "integration/cli/test_cli.py",
    "integration/log/test_log_under_serve.py",
    "integration/cli/test_cli_discovery.py",
    "integration/cli/test_cli_small_findings.py",
)
"""Modules handed out first (longest first, roughly, from `--durations`): the workers take tests in the
order collected, and a minutes-long test taken last keeps one worker busy while the other has finished
(the journey alone is one xdist group). The order of tests within a module is kept."""


def _in(relative: Path, names: frozenset[str] | tuple[str, ...]) -> bool:
    """Whether a test file is one of these, or lies in one of these folders (paths under tests/)."""
    path = relative.as_posix()
    return any(path == name or path.startswith(name + "/") for name in names)


def _rank(item: pytest.Item) -> int:
    relative = _relative(item)
    for rank, name in enumerate(SLOW_FIRST):
        if relative is not None and _in(relative, (name,)):
            return rank
    return len(SLOW_FIRST)


def _relative(item: pytest.Item) -> Path | None:
    try:
        return item.path.resolve().relative_to(TESTS)
    except ValueError:  # a test file named from outside tests/
        return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    items.sort(key=_rank)  # stable: the same order in every xdist worker, as xdist requires
    misplaced = []
    for item in items:
        relative = _relative(item)
        if relative is None:
            continue
        if levels.level(relative) == levels.UNIT:
            marks = {mark.name for mark in item.iter_markers()}
            why = levels.unit_breaches(item.path, set(getattr(item, "fixturenames", ())), marks)
            misplaced += [f"{item.nodeid}: {reason}" for reason in why]
            continue
        item.add_marker(pytest.mark.redis)
        if levels.level(relative) in levels.MARKED_BY_FOLDER:
            item.add_marker(levels.MARKED_BY_FOLDER[levels.level(relative)])
        if _in(relative, REDIS_CONTRACT):
            item.add_marker(pytest.mark.redis_contract)
    if misplaced:
        raise pytest.UsageError(
            "tests/unit starts nothing: move these to tests/integration (tests/README.md says where):\n  "
            + "\n  ".join(dict.fromkeys(misplaced))
        )


NO_REDIS_SERVER = "/nonexistent/a-test-not-marked-redis-starts-no-redis-server"


@pytest.fixture(autouse=True)
def _no_redis_unmarked(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """A test not marked `redis` that starts a Redis anyway (an embedded one, a `serve`, a command that
    starts the data folder's) fails at once, naming why, in this process and in those it starts; nor does it
    reach a Redis named by the environment."""
    if request.node.get_closest_marker("redis") is None:
        monkeypatch.setenv("HARBORMASTER_REDIS_SERVER", NO_REDIS_SERVER)
        monkeypatch.delenv("REDIS_URL", raising=False)
        monkeypatch.delenv("RQ_REDIS_URL", raising=False)
