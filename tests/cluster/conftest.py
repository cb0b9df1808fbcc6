"""A real local Redis Cluster (3 masters, 3 replicas) shared by the cluster tests of one test process, and
the standalone Redis that rq needs beside it (``RQ_REDIS_URL``, set for every cluster test and the
processes it starts)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from redis.cluster import RedisCluster

from services.redis_launcher import EmbeddedRedis
from tests.support.redis_cluster import LocalCluster, why_no_cluster


@pytest.fixture(scope="session")
def redis_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    with _local_cluster(tmp_path_factory.mktemp("cluster")) as cluster:
        yield cluster


@pytest.fixture
def own_cluster(tmp_path: Path) -> Iterator[LocalCluster]:
    """A cluster of the test's own, for a test that kills a master (the shared one must keep its three
    replicas for the other tests)."""
    with _local_cluster(tmp_path / "cluster") as cluster:
        yield cluster


@contextlib.contextmanager
def _local_cluster(folder: Path) -> Iterator[LocalCluster]:
    if reason := why_no_cluster():
        pytest.skip(reason)
    with LocalCluster(folder) as cluster:
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


@pytest.fixture(scope="session")
def rq_redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A standalone Redis of the cluster tests' own for rq (never the session's other Redis: jobs left in
    its queues by a cluster test must not reach another test's rq worker)."""
    server = EmbeddedRedis(Path(tmp_path_factory.mktemp("rq-redis")))
    server.start()
    try:
        yield server.url
    finally:
        server.stop()


@pytest.fixture(autouse=True)
def rq_redis_url(rq_redis: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """``RQ_REDIS_URL`` for the test and every process it starts, on a flushed rq Redis."""
    client = redis.Redis.from_url(rq_redis)
    client.flushall()
    monkeypatch.setenv("RQ_REDIS_URL", rq_redis)
    try:
        yield rq_redis
    finally:
        client.flushall()
        client.close()
