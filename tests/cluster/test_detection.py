"""How ``REDIS_URL`` is recognised as a Cluster: by its scheme, or by asking the node; a standalone Redis
keeps its plain client."""

from __future__ import annotations

import redis
from redis.cluster import RedisCluster

from services import cluster
from tests.support.redis_cluster import LocalCluster


def test_the_cluster_scheme_becomes_a_plain_node_url() -> None:
    assert cluster.node_url("redis+cluster://10.0.0.5:7000/0") == "redis://10.0.0.5:7000/0"
    assert cluster.node_url("redis://10.0.0.5:6379/2") == "redis://10.0.0.5:6379/2"


def test_a_standalone_redis_gets_the_plain_client(redis_url: str) -> None:
    assert not cluster.is_cluster(redis_url)
    client = cluster.connect(redis_url)
    try:
        assert isinstance(client, redis.Redis) and client.ping()
    finally:
        client.close()


def test_either_url_of_a_cluster_node_gets_the_cluster_client(redis_cluster: LocalCluster) -> None:
    for url in (redis_cluster.url, redis_cluster.plain_url):
        assert cluster.is_cluster(url)
        client = cluster.connect(url)
        try:
            assert isinstance(client, RedisCluster)
            assert {node.port for node in client.get_primaries()} == set(redis_cluster.master_ports())
        finally:
            client.close()
