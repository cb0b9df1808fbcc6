"""The worker's overlapped steps on a real Redis: a batch decided on top of a refused append, reads sent
ahead, the inbox trimmed by acknowledgements, a lost script cache."""

from __future__ import annotations

from hashlib import sha1
from typing import Any

import workers.reader
from events import codec, keys
from events.bus import TRIM_LUA, InboxEntry
from events.keys import partition_for
from services.bootstrap import Services
from tests.support.pipeline import SETUP_ID, new_race, services_for
from workers.fold import Flight, FoldWorker

ROLL = b'{"type":"Roll"}'


def _worker(services, kind: type[FoldWorker] = FoldWorker, **kwargs) -> FoldWorker:
    return kind(services.redis, services.store, services.bus, block_ms=20, **kwargs)


class _CountingRefusals(FoldWorker):
    """A fold worker that notes how many entries each flight it lands gives back to be decided again."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.refused: list[int] = []

    def _land(self, flight: Flight) -> list[InboxEntry]:
        retry = super()._land(flight)
        self.refused.append(len(retry))
        return retry


def _leasing_worker(redis_url: str) -> tuple[Services, FoldWorker, int]:
    """A race game "g1", a worker that holds every partition's lease, and the game's partition."""
    services = services_for(redis_url)
    new_race(services, "g1", seats=2)
    worker = _worker(services)
    services.bus.ensure_groups()
    worker._heartbeat()
    return services, worker, partition_for("g1", services.bus.partitions)


def test_a_batch_decided_on_top_of_a_refused_append_is_decided_again_after_it_in_order(
    redis_url, redis_client
) -> None:
    services = services_for(redis_url)
    new_race(services, "g1", seats=2)
    partition = partition_for("g1", services.bus.partitions)
    stale = _worker(services, _CountingRefusals)
    services.bus.ensure_groups()

    def next_entries(count: int):
        return services.bus.read(stale.worker_id, [partition], count, None)

    services.bus.submit("g1", 0, ROLL, "first")
    assert stale.process(next_entries(1)) == 1
    services.bus.submit("g1", 1, ROLL, "by-other")
    _worker(services).run(until_idle=True)
    assert stale.cache.get("g1").seq == 2  # stale: the game is at seq 3, seat 0 to move
    stale.refused.clear()
    services.bus.submit("g1", 0, ROLL, "c0")
    services.bus.submit("g1", 1, ROLL, "c1")
    c0, c1 = next_entries(2)
    assert stale._step([c0]) == 0  # c0 decided (on the stale state: rejected, not seat 0's turn) and sent
    # c1 is decided on top of c0 and sent behind it; c0's append is refused (the game moved on), so is
    # c1's (the position it expects was never reached): both are decided again on a fresh load, c0 first.
    assert stale._step([c1]) == 2
    assert stale.refused == [1, 1, 0]  # c0's flight, c1's flight, then both again in one
    records = [services.store.result("g1", i, seat) for seat, i in enumerate(("c0", "c1"))]
    assert [(r.status, r.first_seq) for r in records] == [("applied", 4), ("applied", 5)]
    assert [r.command_id for r in services.store.records("g1")] == [SETUP_ID, "first", "by-other", "c0", "c1"]
    assert stale.cache.get("g1").seq == 5


def test_entries_read_ahead_are_folded_after_the_batch_in_hand_and_before_the_worker_stops(
    redis_url, redis_client
) -> None:
    services = services_for(redis_url)
    new_race(services, "g1", seats=2)
    worker = _worker(services)
    services.bus.ensure_groups()
    worker._heartbeat()  # takes the leases of every partition
    services.bus.submit("g1", 0, ROLL, "c0")
    batch = worker.reader.next_entries(busy=False)
    services.bus.submit("g1", 1, ROLL, "c1")
    assert worker._step(batch) == 0  # c0 decided and its append sent; the read of c1 sent ahead
    assert worker.reader.ahead
    worker.request_stop()
    assert worker.run() == 2  # a warm stop settles what is in hand: c0, then c1
    assert not worker.reader.ahead
    assert [r.command_id for r in services.store.records("g1")] == [SETUP_ID, "c0", "c1"]
    partition = partition_for("g1", services.bus.partitions)
    assert redis_client.xpending(keys.inbox(partition), keys.GROUP)["pending"] == 0


def test_a_trim_riding_with_a_read_sent_ahead_survives_a_lost_script_cache(redis_url, redis_client) -> None:
    services, worker, partition = _leasing_worker(redis_url)
    services.bus.submit("g1", 0, ROLL, "c0")
    assert worker._step(worker.reader.next_entries(busy=False)) == 0
    assert worker._step(worker.reader.next_entries(busy=True)) == 1  # c0 applied, its partition untrimmed
    assert worker.reader.next_entries(busy=True) == []  # the read sent ahead in that step
    redis_client.script_flush()
    services.bus.submit("g1", 1, ROLL, "c1")
    worker.reader._next_housekeeping = 0.0  # the trim is due: it rides with the next read
    worker.reader.read_ahead()
    queued = [args[0] for args, _ in worker.reader.writes.command_stack]
    assert queued == []  # sent with the read: c0's acknowledgement, the counters, the trim
    entries = worker.reader.next_entries(busy=True)  # the trim was refused (NOSCRIPT): its script reloaded
    assert [codec.decode_inbox(e.raw).command_id for e in entries] == ["c1"]
    assert redis_client.script_exists(sha1(TRIM_LUA.encode()).hexdigest()) == [True]
    assert worker.process(entries) == 1  # the append script is reloaded too
    assert [r.command_id for r in services.store.records("g1")] == [SETUP_ID, "c0", "c1"]
    assert redis_client.xlen(keys.inbox(partition)) == 0  # every entry acknowledged and trimmed


def test_trimming_frees_the_inbox_below_the_oldest_pending_entry_and_never_an_undelivered_one(
    redis_url, redis_client
) -> None:
    services = services_for(redis_url)
    bus = services.bus
    bus.ensure_groups()
    partition = partition_for("g1", bus.partitions)
    for n in range(3):
        bus.submit("g1", 0, ROLL, f"c{n}")
    first, second, third = (e.entry_id for e in bus.read("c", [partition], 10, None))
    bus.submit("g1", 0, ROLL, "not-read-yet")

    def ack(*entry_ids: bytes) -> int:
        pipe = bus.pipeline()
        bus.queue_ack(pipe, partition, list(entry_ids))
        bus.queue_trim(pipe, partition)
        pipe.execute()
        assert bus.backlog() == 4 - len(acked.union(entry_ids))  # waiting: unacknowledged or undelivered
        acked.update(entry_ids)
        return int(redis_client.xlen(keys.inbox(partition)))

    acked: set[bytes] = set()

    assert ack(second) == 4  # the first is still pending: nothing below it to trim
    assert ack(first) == 2  # the third is the oldest pending: the first two go
    assert ack(third) == 1  # nothing pending: everything delivered goes, the unread entry stays
    [(entry_id, _)] = redis_client.xrange(keys.inbox(partition))
    assert entry_id > third


def test_a_lost_script_cache_is_loaded_again_and_no_command_is_lost(redis_url, redis_client) -> None:
    services = services_for(redis_url)
    new_race(services, "g1", seats=2)
    worker = _worker(services)
    services.bus.submit("g1", 0, ROLL, "before")
    worker.run(until_idle=True)
    redis_client.script_flush()
    services.bus.submit("g1", 1, ROLL, "after")
    services.bus.submit("g1", 0, ROLL, "after-2")
    assert worker.run(until_idle=True) == 2
    assert [r.command_id for r in services.store.records("g1")] == [SETUP_ID, "before", "after", "after-2"]
    assert all(r.status == "applied" for r in services.store.records("g1"))


def test_with_the_cyclic_collector_off_the_worker_collects_cycles_by_hand_when_idle(
    redis_url, redis_client
) -> None:
    import gc
    import weakref

    class Node:
        pass

    services = services_for(redis_url)
    worker = _worker(services)
    was_enabled = gc.isenabled()
    gc.disable()  # as workers/runner.py does in a worker process
    try:
        cycle = Node()
        cycle.me = cycle
        alive = weakref.ref(cycle)
        del cycle
        worker._collect_cycles(idle=True)
        assert alive() is not None  # not yet: the last collection was under a minute ago
        worker._collected_at -= 61
        worker._collect_cycles(idle=True)
        assert alive() is None
    finally:
        if was_enabled:
            gc.enable()


def test_a_trickle_is_trimmed_and_counted_on_the_beat_and_an_idle_worker_at_once(
    redis_url, redis_client, monkeypatch
) -> None:
    monkeypatch.setattr(workers.reader, "HOUSEKEEPING_S", 60.0)  # no beat falls within the test
    services, worker, partition = _leasing_worker(redis_url)

    def counted() -> object:  # the counters as they stand in Redis
        return redis_client.hget("hm:metrics", "commands_applied")

    def turn() -> None:  # one turn of FoldWorker.run
        worker._step(worker.reader.next_entries(busy=worker._in_flight is not None))

    def settle() -> None:  # land what is in flight and take the read sent ahead, as the worker does
        while worker._in_flight is not None or worker.reader.ahead:
            turn()

    # A trickle: each command arrives once the worker has landed the one before and waits for more.
    for n, seat in enumerate((0, 1) * 5):
        settle()
        services.bus.submit("g1", seat, ROLL, f"c{n}")
        turn()  # a read that waits finds the command
    settle()
    assert [services.store.result("g1", f"c{n}", n % 2).status for n in range(10)] == ["applied"] * 10
    assert counted() is None  # the counters were not sent between commands
    assert redis_client.xlen(keys.inbox(partition)) == 10  # acknowledged, not trimmed yet

    turn()  # a read that waits finds nothing: the worker has run dry
    assert counted() is None
    turn()  # so the counters and the trim go out with the next read
    assert counted() == b"10"
    assert redis_client.xlen(keys.inbox(partition)) == 0


def test_a_burst_is_read_one_entry_a_partition_first_then_twice_as_many_each_read_it_stays_full(
    redis_url, redis_client
) -> None:
    services, worker, partition = _leasing_worker(redis_url)
    worker.reader.batch_size = 8
    for n in range(20):
        services.bus.submit("g1", n % 2, ROLL, f"c{n}")

    def read() -> list[str]:
        return [codec.decode_inbox(e.raw).command_id for e in worker.reader.next_entries(busy=True)]

    reads = [read() for _ in range(5)]
    assert [len(ids) for ids in reads] == [1, 2, 4, 8, 5]  # doubling while each read fills its count, ≤ 8
    assert [i for ids in reads for i in ids] == [f"c{n}" for n in range(20)]  # in order, none skipped
    assert worker.reader.count == workers.reader.FIRST_COUNT  # the last left none behind
    assert read() == []
    services.bus.submit("g1", 0, ROLL, "later")
    services.bus.submit("g1", 1, ROLL, "later-2")
    assert read() == ["later"]  # a new burst starts small again: its first move goes out at once
    assert read() == ["later-2"]
    assert redis_client.xpending(keys.inbox(partition), keys.GROUP)["pending"] == 22  # each read once
