"""The bot runner on a Redis Cluster: each game's stream read on its own (a read of several is refused
across slots), batched per node; bot games on every master are played to their end, every bot move sent
by the runner, and every game verifies."""

from __future__ import annotations

import os
import threading

from redis.cluster import RedisCluster

from events import keys
from tests.cluster.test_worker_on_cluster import PARTITIONS, assert_every_game_verifies, cluster_services
from tests.support.pipeline import eventually, stop_process, worker_process
from tests.support.redis_cluster import LocalCluster
from workers.botrunner import NAMESPACE, BotRunner


def test_a_runner_plays_bot_games_on_every_master_to_their_end(
    redis_cluster: LocalCluster, cluster_client: RedisCluster
) -> None:
    services = cluster_services(redis_cluster.url)
    services.bus.ensure_groups()
    game_ids = [f"bots{n}" for n in range(9)]
    for game_id in game_ids:
        services.store.create(
            "manila", game_id, 3, {}, os.urandom(32), bots={0: "greedy", 1: "random", 2: "greedy"}
        )
    assert len({cluster_client.get_node_from_key(keys.meta(g)).port for g in game_ids}) == 3
    runner = BotRunner(services.store, services.bus)
    fold = worker_process(redis_cluster.url, PARTITIONS)
    thread = threading.Thread(target=runner.run, daemon=True)
    try:
        thread.start()
        eventually(
            lambda: all(services.store.meta(g).status == "finished" for g in game_ids),
            timeout=300,
            message="every bot game ended",
        )
    finally:
        runner.stop()
        thread.join(timeout=60)
        stop_process(fold, timeout=60)
    assert not thread.is_alive()
    bot_moves = sum(1 for g in game_ids for r in services.store.records(g) if r.origin == "bot")
    assert runner.moves_sent >= bot_moves > 0  # every bot move applied was sent by this runner
    assert cluster_client.zcard(keys.WORKERS + NAMESPACE) == 0  # it left: its shards are free at once
    assert_every_game_verifies(services, game_ids)
