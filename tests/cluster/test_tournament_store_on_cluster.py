"""The tournament store's contract (``tests/integration/stores/tournament_store_contract.py``) on the real local Cluster:
a tournament's keys in its slot ``{t:<id>}`` on one master, the index of tournaments on another slot."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from redis.cluster import RedisCluster

from tests.integration.stores.tournament_store_contract import TournamentStoreContract
from tests.support.redis_cluster import LocalCluster


class TestTournamentStoreOnCluster(TournamentStoreContract):
    @pytest.fixture
    def client(self, cluster_client: RedisCluster) -> RedisCluster:
        return cluster_client  # every master flushed

    @pytest.fixture
    def connect(self, redis_cluster: LocalCluster) -> Callable[[], RedisCluster]:
        return lambda: RedisCluster(host="127.0.0.1", port=redis_cluster.ports[0])
