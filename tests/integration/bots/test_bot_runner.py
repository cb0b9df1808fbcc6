"""The bot runner (``workers/botrunner.py``): bot seats played from the games' events, read as they come,
with no rq job per move; a killed runner's games are played on by another, and every game verifies."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading

from events.keys import WORKERS, lease
from services.audit.verify import verify_lines
from services.export import export_lines
from tests.conftest import TEST_GAMES
from tests.support.pipeline import TEST_PLUGINS, eventually, services_for, stop_process, worker_process
from workers.botrunner import NAMESPACE, SHARDS, BotRunner, shard_of


def _runner_process(url: str, partitions: int) -> subprocess.Popen[bytes]:
    """An rq worker, which runs a bot runner on a thread of its own."""
    env = {**os.environ, "REDIS_URL": url, "HARBORMASTER_PARTITIONS": str(partitions),
           "HARBORMASTER_GAME_PLUGINS": TEST_PLUGINS, "HARBORMASTER_LOG_LEVEL": "warning"}  # fmt: skip
    return subprocess.Popen([sys.executable, "-m", "services.cli", "rq-worker", "--no-fork"], env=env)


def _one_holder(services) -> bool:
    """Every shard's lease held, all by the same runner."""
    holders = {services.redis.get(lease(p) + NAMESPACE) for p in range(SHARDS)}
    return len(holders) == 1 and None not in holders


def _finished(services, game_ids: list[str]) -> bool:
    return all(services.store.meta(g).status == "finished" for g in game_ids)


def _verified(services, game_id: str) -> None:
    report = verify_lines(list(export_lines(services.store, game_id)), TEST_GAMES)
    assert report.ok and report.finished and report.decisions_checked, report.problems


def test_a_runner_in_this_process_plays_many_games_to_their_end(redis_url, redis_client) -> None:
    services = services_for(redis_url)
    services.bus.ensure_groups()
    # Bot games on both sides of every shard, and one game without bots, which the runner leaves alone.
    game_ids = [f"run{n}" for n in range(12)]
    for n, game_id in enumerate(game_ids):
        services.store.create(
            "manila", game_id, 3, {}, os.urandom(32), bots={0: "greedy", 1: "random", 2: "greedy"}
        )
        assert 0 <= shard_of(game_id) < SHARDS, n
    services.store.create("race", "people", 2, {"goal": 12}, os.urandom(32))
    people_at = services.store.meta("people").last_seq
    runner = BotRunner(services.store, services.bus)
    fold = worker_process(redis_url, services.bus.partitions)
    try:
        thread = threading.Thread(target=runner.run, daemon=True)
        thread.start()
        eventually(lambda: _finished(services, game_ids), timeout=240, message="every bot game ended")
        runner.stop()
        thread.join(timeout=60)
        assert not thread.is_alive()
    finally:
        stop_process(fold)
    assert services.store.meta("people").last_seq == people_at  # no bot seat: the runner left it alone
    bot_moves = sum(1 for g in game_ids for r in services.store.records(g) if r.origin == "bot")
    assert runner.moves_sent >= bot_moves > 0  # every bot move applied was sent by this runner
    assert services.redis.zcard(WORKERS + NAMESPACE) == 0  # it left: its shards are free at once
    for game_id in game_ids:
        _verified(services, game_id)


def test_a_killed_runner_s_games_are_played_on_by_another(redis_url, redis_client) -> None:
    services = services_for(redis_url)
    services.bus.ensure_groups()
    partitions = services.bus.partitions
    game_ids = [f"kill{n}" for n in range(8)]
    for game_id in game_ids:
        services.store.create("manila", game_id, 4, {}, os.urandom(32),
                              bots={s: ("greedy", "random")[s % 2] for s in range(4)})  # fmt: skip
    fold = worker_process(redis_url, partitions)
    runners = [_runner_process(redis_url, partitions) for _ in range(2)]
    try:
        eventually(lambda: min(services.store.meta(g).last_seq for g in game_ids) > 20, timeout=120,
                   message="every game under way")  # fmt: skip
        runners[0].send_signal(signal.SIGKILL)  # its leases stay until they expire, then the other takes them
        eventually(lambda: _one_holder(services), timeout=60, message="the live runner holds every shard")
        eventually(lambda: _finished(services, game_ids), timeout=240, message="every game ended")
    finally:
        for process in (fold, *runners):
            if process.poll() is None:
                stop_process(process)
    for game_id in game_ids:
        _verified(services, game_id)
