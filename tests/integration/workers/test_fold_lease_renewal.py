"""The fold worker keeps its partitions through a slow step, and its cache through a lease taken back
(issue 42: a step of cold loads outlasted the leases, which were lost with the cache, again and again).

The one-writer guarantee does not rest on the leases alone: every append is a compare-and-set on the game's
position (expected seq and chain hash, ``events/lua/append.lua``), so a worker deciding on a stale cache is
refused and decides again (``test_fold_worker.py``, the stale cached state test)."""

from __future__ import annotations

import time

from events import keys
from events.keys import partition_for
from events.store import LoadedGame
from tests.support.pipeline import new_race, services_for
from workers.fold import FoldWorker
from workers.leases import PartitionLeases

ROLL = b'{"type":"Roll"}'
PARTITIONS = 4


def _worker(services, ttl_ms: int = 3000) -> FoldWorker:
    worker = FoldWorker(services.redis, services.store, services.bus, block_ms=20)
    worker.leases.ttl_ms = ttl_ms
    return worker


def test_a_slow_step_keeps_the_leases_a_rival_finds_none_free(redis_url, redis_client) -> None:
    services = services_for(redis_url, partitions=PARTITIONS)
    games = _one_game_a_partition()
    for game_id in games:
        new_race(services, game_id)
        services.bus.submit(game_id, 0, ROLL)
    rival = PartitionLeases(redis_client, "rival", PARTITIONS, ttl_ms=2000)
    taken_by_rival: list[set[int]] = []

    def slow_hook(game_id: str, loaded: LoadedGame) -> None:
        # The hook: landing the first batch (one command a partition) runs it four times, 0.8 s each, as
        # slow cold loads would be in deciding (the store is compiled: no hook in it). After the fourth,
        # 3.2 s into the step and past the leases' 2 s, a rival tries to take the partitions.
        time.sleep(0.8)
        calls.append(game_id)
        if len(calls) == PARTITIONS:
            taken_by_rival.append(rival.heartbeat()[0])
            rival.release_all()  # and leaves, so the worker keeps every partition

    calls: list[str] = []
    worker = FoldWorker(services.redis, services.store, services.bus, block_ms=20, on_applied=slow_hook)
    worker.leases.ttl_ms = 2000
    assert worker.run(until_idle=True) == len(games)
    assert taken_by_rival == [set()]  # every lease still held: renewed between the commands of the step
    assert sorted(calls) == sorted(games) and all(services.store.load(g).seq == 2 for g in games)


def _one_game_a_partition() -> list[str]:
    found: dict[int, str] = {}
    for n in range(1000):
        found.setdefault(partition_for(f"g{n}", PARTITIONS), f"g{n}")
    return [found[p] for p in range(PARTITIONS)]


def test_a_lease_that_ran_out_and_is_taken_back_with_nobody_in_between_keeps_the_cache(
    redis_url, redis_client
) -> None:
    services = services_for(redis_url, partitions=PARTITIONS)
    new_race(services, "g1")
    services.bus.submit("g1", 0, ROLL)
    worker = _worker(services)
    services.bus.ensure_groups()
    worker._heartbeat()  # takes every lease
    worker.process(worker.reader.next_entries(busy=False))  # folds g1's roll: the cache holds g1
    assert worker.cache.get("g1") is not None
    partition = partition_for("g1", PARTITIONS)
    redis_client.delete(keys.lease(partition))  # the lease ran out (a step outlasted it)
    worker._next_heartbeat = 0.0
    worker._heartbeat()  # lost and taken back at once, the fence one past this worker's own
    assert partition in worker.leases.owned and worker.cache.get("g1") is not None


def test_a_lease_another_worker_held_in_between_drops_the_cache_of_its_games(redis_url, redis_client) -> None:
    services = services_for(redis_url, partitions=PARTITIONS)
    new_race(services, "g1")
    services.bus.submit("g1", 0, ROLL)
    worker = _worker(services)
    services.bus.ensure_groups()
    worker._heartbeat()
    worker.process(worker.reader.next_entries(busy=False))
    assert worker.cache.get("g1") is not None
    partition = partition_for("g1", PARTITIONS)
    redis_client.delete(keys.lease(partition))
    rival = PartitionLeases(redis_client, "rival", PARTITIONS)
    assert rival.heartbeat()[0] == {partition}  # the one free lease: the rival may have appended to g1 ...
    rival.release_all()
    worker._next_heartbeat = 0.0
    worker._heartbeat()  # ... so the worker taking it back forgets what it had cached
    assert partition in worker.leases.owned and worker.cache.get("g1") is None


def test_heartbeat_reports_a_lease_taken_back_neither_lost_nor_gained_unless_another_held_it(
    redis_client,
) -> None:
    leases = PartitionLeases(redis_client, "w1", PARTITIONS, ttl_ms=5000)
    assert leases.heartbeat() == (set(range(PARTITIONS)), set())
    redis_client.delete(keys.lease(0))
    assert leases.heartbeat() == (set(), set()) and leases.owned == set(range(PARTITIONS))
    other = PartitionLeases(redis_client, "w2", PARTITIONS, ttl_ms=5000)
    redis_client.delete(keys.lease(2))
    assert other.heartbeat()[0] == {2}
    other.release_all()
    assert leases.heartbeat() == ({2}, {2}) and leases.owned == set(range(PARTITIONS))
