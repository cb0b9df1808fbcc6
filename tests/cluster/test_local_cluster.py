"""The local cluster the cluster tests run on is a real one: three masters, each with a replica, every
slot served, and keys of different hash tags on different masters."""

from __future__ import annotations

import pytest
import redis
from redis.cluster import RedisCluster

from events import keys
from tests.support.redis_cluster import LocalCluster


def test_three_masters_each_with_a_replica_serve_every_slot(redis_cluster: LocalCluster) -> None:
    masters = redis_cluster.master_ports()
    assert len(masters) == 3
    node = redis_cluster.client(masters[0])
    try:
        info = node.execute_command("CLUSTER", "INFO")
        assert b"cluster_state:ok" in info and b"cluster_slots_assigned:16384" in info
        replicas = [
            line for line in node.execute_command("CLUSTER", "NODES").splitlines() if b"slave" in line
        ]
        assert len(replicas) == 3
    finally:
        node.close()


def test_a_games_keys_share_a_node_and_games_spread_over_the_masters(cluster_client: RedisCluster) -> None:
    owners = set()
    for n in range(30):
        game = f"g{n}"
        tagged = [keys.events(game), keys.meta(game), keys.results(game), keys.commands(game)]
        slots = {cluster_client.keyslot(key) for key in tagged}
        assert len(slots) == 1
        owners.add(cluster_client.get_node_from_key(tagged[0]).port)
    assert len(owners) == 3
    # Keys of two games in one plain command are refused: the cluster really spans nodes.
    with pytest.raises(redis.ResponseError, match="same slot"):
        node = cluster_client.get_node_from_key(keys.events("g0"))
        cluster_client.execute_command(
            "MSET", keys.meta("g0"), b"1", keys.meta("g1"), b"1", target_nodes=node
        )
