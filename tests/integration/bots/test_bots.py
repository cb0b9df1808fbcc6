"""Server bots: the fold worker enqueues rq jobs that play every bot seat until the game ends."""

from __future__ import annotations

import os
import subprocess
import sys

from services.games import create_game
from tests.support.pipeline import RACE_PLUGIN, eventually, services_for, stop_process, worker_process


def test_an_all_bot_game_plays_itself_to_the_end_through_rq(redis_url, redis_client) -> None:
    services = services_for(redis_url)
    game_id, _ = create_game(
        services, "race", 2, {"goal": 20}, bots={0: "random", 1: "greedy"}, redis_url=redis_url
    )
    env = {**os.environ, "REDIS_URL": redis_url, "HARBORMASTER_GAME_PLUGINS": RACE_PLUGIN}
    env["HARBORMASTER_PARTITIONS"] = str(services.bus.partitions)
    rq_worker = subprocess.Popen([sys.executable, "-m", "services.cli", "rq-worker"], env=env)
    fold = worker_process(redis_url, partitions=services.bus.partitions)
    try:
        eventually(
            lambda: services.store.meta(game_id).status == "finished", timeout=90, message="bot game end"
        )
    finally:
        stop_process(fold)
        rq_worker.terminate()
        rq_worker.wait(timeout=20)
    records = services.store.records(game_id)
    assert all(r.status == "applied" for r in records)
    assert {r.seat for r in records[1:]} == {0, 1}
    assert all(r.command_id.startswith("bot-") for r in records[1:])
