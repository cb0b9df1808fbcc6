"""The event store's contract (``tests/integration/stores/store_contract.py``) on the real local Cluster, and what only a
Redis with replicas shows: an append under the replica acknowledgement is confirmed once a replica has it."""

from __future__ import annotations

import pytest
from redis.cluster import RedisCluster

from events.replica_ack import ReplicaAck
from tests.integration.stores.store_contract import EventStoreContract, decided_roll, new_race, store_on
from tests.support.redis_cluster import LocalCluster

WAIT = ReplicaAck(mode="wait", replicas=1, timeout_ms=5000)


class TestEventStoreOnCluster(EventStoreContract):
    @pytest.fixture
    def url(self, redis_cluster: LocalCluster, cluster_client: RedisCluster) -> str:
        return redis_cluster.url  # every master flushed by cluster_client

    def test_wait_acknowledges_an_append_once_a_replica_has_it(self, url: str) -> None:
        store = store_on(url, WAIT)
        new_race(store, "acked")
        acked = ["acked-roll0", "acked-roll1"]
        for seat, command_id in enumerate(acked):  # each raises NotReplicated unless a replica confirmed it
            assert store.append("acked", decided_roll(store, "acked", command_id, seat=seat)).status == "ok"
        applied = [r.command_id for r in store.records("acked") if r.status == "applied"]
        assert applied[-2:] == acked
