"""The event store's contract (``tests/integration/stores/store_contract.py``) on one standalone Redis, and what only a Redis
without replicas shows: an append under the replica acknowledgement runs but is never confirmed."""

from __future__ import annotations

import pytest
import redis

from events.replica_ack import NotReplicated, ReplicaAck
from tests.integration.stores.store_contract import EventStoreContract, decided_roll, new_race, store_on


class TestEventStoreOnRedis(EventStoreContract):
    @pytest.fixture
    def url(self, redis_url: str, redis_client: redis.Redis) -> str:
        return redis_url  # flushed by redis_client

    def test_wait_without_a_replica_leaves_the_append_unacknowledged_and_a_retry_is_answered_once(
        self, url: str
    ) -> None:
        store = store_on(url, ReplicaAck(mode="wait", replicas=1, timeout_ms=50))
        with pytest.raises(NotReplicated):  # the set-up is an append too
            new_race(store, "lonely")
        assert store.meta("lonely").last_seq == 1  # it ran, unconfirmed
        with pytest.raises(NotReplicated):  # the append ran, but no replica confirmed it
            store.append("lonely", decided_roll(store, "lonely", "lonely-roll0", seat=0))
        with pytest.raises(NotReplicated):  # the retry with the same id is a duplicate, still unconfirmed
            store.append("lonely", decided_roll(store, "lonely", "lonely-roll0", seat=0))
        applied = [r.command_id for r in store.records("lonely") if r.status == "applied"]
        assert applied[1:] == ["lonely-roll0"]
