"""Partition leases on a real Redis: split between live workers, renewed, lost, taken over."""

from __future__ import annotations

import time

from events import keys
from workers.leases import PartitionLeases


def test_two_live_workers_split_the_partitions_between_them(redis_client) -> None:
    first = PartitionLeases(redis_client, "w1", 8, ttl_ms=2000)
    second = PartitionLeases(redis_client, "w2", 8, ttl_ms=2000)
    assert first.heartbeat() == (set(range(8)), set())  # alone: takes every partition
    second.heartbeat()  # two live workers now: the second finds every lease taken ...
    first.heartbeat()  # ... until the first sheds down to its half
    gained, _ = second.heartbeat()
    assert len(first.owned) == 4 and gained == second.owned and len(second.owned) == 4
    assert first.owned.isdisjoint(second.owned)


def test_the_leases_of_a_worker_that_stopped_beating_are_taken_over_when_they_expire(redis_client) -> None:
    dead = PartitionLeases(redis_client, "dead", 4, ttl_ms=300)
    dead.heartbeat()
    survivor = PartitionLeases(redis_client, "survivor", 4, ttl_ms=300)
    assert survivor.heartbeat()[0] == set()
    time.sleep(0.4)
    assert survivor.heartbeat()[0] == {0, 1, 2, 3}
    assert dead.heartbeat()[1] == {0, 1, 2, 3}  # the dead one, back, learns it lost them


def test_leases_are_renewed_after_the_server_lost_its_script_cache(redis_client) -> None:
    leases = PartitionLeases(redis_client, "w1", 4, ttl_ms=1000)
    leases.heartbeat()
    redis_client.script_flush()
    time.sleep(0.6)
    assert leases.heartbeat() == (set(), set())
    assert leases.owned == {0, 1, 2, 3}
    assert all(redis_client.pttl(keys.lease(p)) > 500 for p in range(4))  # renewed: 1000 ms to live again
