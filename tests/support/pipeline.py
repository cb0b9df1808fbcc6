"""Helpers for tests that drive the real pipeline: services on a test Redis, worker processes."""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path

import redis

from events.envelope import CommandRecord
from services.bootstrap import Services, build
from services.config import Settings
from services.redis_launcher import running_url
from tests.conftest import TEST_GAMES

RACE_PLUGIN = "tests.support.minimal_game:GAME"
COUNTER_PLUGIN = "tests.support.counter_game:GAME"
TEST_PLUGINS = f"{RACE_PLUGIN},{COUNTER_PLUGIN}"


def services_for(
    url: str, partitions: int = 8, snapshot_every: int = 200, archive_trim: bool = True
) -> Services:
    settings = Settings(
        redis_url=url,
        data_dir=Path(".harbormaster-test").resolve(),
        partitions=partitions,
        snapshot_every=snapshot_every,
        game_plugins=(RACE_PLUGIN, COUNTER_PLUGIN),
        archive_trim=archive_trim,
    )
    return build(settings, url, games=TEST_GAMES)


def new_race(services: Services, game_id: str, seats: int = 2, goal: int = 10_000) -> None:
    services.store.create("race", game_id, seats, {"goal": goal}, secrets.token_bytes(32))


def worker_process(
    url: str,
    partitions: int = 8,
    extra_env: dict[str, str] | None = None,
    extra_args: list[str] | None = None,
) -> subprocess.Popen[bytes]:
    """A real ``harbormaster worker`` process on the test Redis, knowing the test race game."""
    env = {
        **os.environ,
        "REDIS_URL": url,
        "HARBORMASTER_PARTITIONS": str(partitions),
        "HARBORMASTER_GAME_PLUGINS": TEST_PLUGINS,
        "HARBORMASTER_LOG_LEVEL": "warning",
        **(extra_env or {}),
    }
    return subprocess.Popen([sys.executable, "-m", "services.cli", "worker", *(extra_args or [])], env=env)


def stop_process(process: subprocess.Popen[bytes], timeout: float = 20) -> int:
    process.send_signal(signal.SIGTERM)
    return process.wait(timeout=timeout)


def stop_serve(process: subprocess.Popen[bytes], data: Path, timeout: float = 60) -> None:
    """Stop a ``serve`` started in a session of its own (SIGTERM, then SIGKILL after ``timeout``), and the
    embedded Redis under ``data`` with it: a serve killed (not stopped) leaves its Redis running by design,
    for the next serve to pick up, and in a test nothing comes next (one was left behind once, on a loaded
    machine)."""
    url = running_url(data)
    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
    if url is not None:
        client = redis.Redis.from_url(url)
        with contextlib.suppress(redis.RedisError):
            client.shutdown(nosave=True)
        client.close()


def wait_for_results(
    services: Services, wanted: Iterable[tuple[str, str, int]], timeout: float = 60
) -> dict[tuple[str, str, int], CommandRecord]:
    """Wait until every ``(game_id, command_id, seat)`` has a recorded result; returns them."""
    pending = set(wanted)
    found: dict[tuple[str, str, int], CommandRecord] = {}
    deadline = time.monotonic() + timeout
    while pending and time.monotonic() < deadline:
        for key in list(pending):
            record = services.store.result(*key)
            if record is not None:
                found[key] = record
                pending.discard(key)
        if pending:
            time.sleep(0.05)
    assert not pending, f"{len(pending)} commands have no result after {timeout} s"
    return found


def eventually(check: Callable[[], bool], timeout: float = 20, message: str = "condition") -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.05)
    raise AssertionError(f"{message} not reached within {timeout} s")


class _AnySetupId:
    """Equal to any set-up command id: the server's, random (``setup-`` and 16 hex digits)."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, str) and re.fullmatch(r"setup-[0-9a-f]{16}", other) is not None

    def __hash__(self) -> int:
        return 0

    def __repr__(self) -> str:
        return "setup-<random>"


SETUP_ID = _AnySetupId()


def finished_race(
    services: Services,
    redis_url: str,
    game_id: str | None = None,
    tournament: bool = False,
    timeout: float = 90,
) -> str:
    """A one-seat race played to its end through the bus and a real fold worker (no archive of its own)."""
    from services.games import create_game

    game_id, _ = create_game(services, "race", 1, {"goal": 6}, game_id=game_id, tournament=tournament)
    fold = worker_process(redis_url, services.bus.partitions, {"HARBORMASTER_ARCHIVE": "off"})
    try:
        for _ in range(6):  # a die rolls at least 1: six rolls reach the goal (any after it are refused)
            services.bus.submit(game_id, 0, b'{"type": "Roll"}', None)
        eventually(lambda: services.store.meta(game_id).status == "finished", timeout, "race end")
    finally:
        stop_process(fold)
    return game_id
