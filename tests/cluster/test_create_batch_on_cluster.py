"""A round's games created at once on the real local Cluster (``events/create_batch.py``, issue 42): each
game on its own there (its keys in its own slot), writing what ``EventStore.create`` writes, and a game
that exists left alone."""

from __future__ import annotations

from redis.cluster import RedisCluster

from tests.integration.stores.store_contract import store_on
from tests.integration.tournaments.test_round_open_batch import (
    assert_an_existing_game_is_left_alone,
    assert_batch_writes_what_create_writes,
)
from tests.support.redis_cluster import LocalCluster


def test_a_batch_on_a_cluster_creates_the_keys_and_events_create_does(
    redis_cluster: LocalCluster, cluster_client: RedisCluster
) -> None:
    store = store_on(redis_cluster.url)
    assert not hasattr(store.redis, "connection_pool"), "a Cluster client: the games are created one by one"
    assert_batch_writes_what_create_writes(
        store, lambda: cluster_client.flushall(target_nodes=RedisCluster.PRIMARIES)
    )


def test_a_batch_on_a_cluster_leaves_a_game_that_exists_alone(
    redis_cluster: LocalCluster, cluster_client: RedisCluster
) -> None:
    assert_an_existing_game_is_left_alone(store_on(redis_cluster.url))
