"""A real local Redis Cluster (3 masters, 3 replicas) shared by the cluster tests of one test process."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import pytest
import redis
from redis.cluster import RedisCluster

from tests.support.redis_cluster import ClusterUnavailable, LocalCluster, redis_cli


@pytest.fixture(scope="session")
def redis_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    try:
        redis_cli()
    except ClusterUnavailable as exc:
        pytest.skip(str(exc))
    with LocalCluster(tmp_path_factory.mktemp("cluster")) as cluster:
        yield cluster


@pytest.fixture
def cluster_client(redis_cluster: LocalCluster) -> Iterator[RedisCluster]:
    """A cluster client, every master flushed before and after the test."""
    client = RedisCluster(host="127.0.0.1", port=redis_cluster.ports[0])
    client.flushall(target_nodes=RedisCluster.PRIMARIES)
    try:
        yield client
    finally:
        # A test that killed a master leaves the flush to the next one.
        with contextlib.suppress(redis.RedisError):
            client.flushall(target_nodes=RedisCluster.PRIMARIES)
        client.close()
