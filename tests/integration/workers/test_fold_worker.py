"""The fold worker in-process on a real Redis: decide -> append -> ack, rejections, poison messages."""

from __future__ import annotations

import msgspec

from events import codec
from events.bus import InboxEntry
from events.keys import commands as keys_commands
from events.keys import events as keys_events
from events.keys import partition_for
from tests.support.pipeline import SETUP_ID, new_race, services_for
from workers.fold import FoldWorker

ROLL = b'{"type":"Roll"}'


def _worker(services, **kwargs) -> FoldWorker:
    return FoldWorker(services.redis, services.store, services.bus, block_ms=20, **kwargs)


def test_commands_are_applied_in_order_and_the_live_state_equals_a_replay(redis_url, redis_client) -> None:
    services = services_for(redis_url)
    new_race(services, "g1", seats=2)
    ids = [services.bus.submit("g1", i % 2, ROLL) for i in range(40)]
    assert _worker(services).run(until_idle=True) == 40
    records = [services.store.result("g1", i, n % 2) for n, i in enumerate(ids)]
    assert all(r is not None and r.status == "applied" for r in records)
    assert [r.first_seq for r in records if r] == list(range(2, 42))
    loaded = services.store.load("g1")
    assert loaded.state.positions[0] + loaded.state.positions[1] == sum(
        codec.decode_event(loaded.game, e).value for e in services.store.read("g1", after_seq=1)
    )


def test_an_illegal_move_is_recorded_with_the_rule_and_appends_nothing(redis_url, redis_client) -> None:
    services = services_for(redis_url)
    new_race(services, "g1", seats=2)
    command_id = services.bus.submit("g1", 1, ROLL)
    _worker(services).run(until_idle=True)
    record = services.store.result("g1", command_id, 1)
    assert record is not None and record.status == "rejected"
    assert record.code == "race.not_your_turn" and "seat 0" in record.message
    assert len(services.store.read("g1")) == 1


def test_an_unknown_command_type_and_a_bad_seat_are_rejected_not_dead_lettered(
    redis_url, redis_client
) -> None:
    services = services_for(redis_url)
    new_race(services, "g1", seats=2)
    unknown = services.bus.submit("g1", 0, b'{"type":"Fly"}')
    bad_seat = services.bus.submit("g1", 7, ROLL)
    _worker(services).run(until_idle=True)
    assert services.store.result("g1", unknown, 0).code == "command.invalid"
    assert services.store.result("g1", bad_seat, 7).code == "command.bad_seat"
    assert services.bus.dead_letters() == []


def test_an_undecodable_message_lands_in_the_dead_letter_stream_with_its_reason(
    redis_url, redis_client
) -> None:
    services = services_for(redis_url)
    new_race(services, "g1", seats=2)
    services.bus.ensure_groups()
    services.bus.submit_raw(partition_for("g1", services.bus.partitions), b"\xc1 not msgpack")
    after = services.bus.submit("g1", 0, ROLL)
    _worker(services).run(until_idle=True)
    dead = services.bus.dead_letters()
    assert len(dead) == 1 and dead[0].reason.startswith("undecodable inbox message")
    assert dead[0].raw == b"\xc1 not msgpack"
    assert services.store.result("g1", after, 0).status == "applied"
    assert services.bus.backlog() == 0


def test_a_command_for_an_unknown_game_is_dead_lettered(redis_url, redis_client) -> None:
    services = services_for(redis_url)
    services.bus.submit("no-such-game", 0, ROLL)
    _worker(services).run(until_idle=True)
    dead = services.bus.dead_letters()
    assert len(dead) == 1 and "unknown game" in dead[0].reason


def test_a_redelivered_command_is_not_applied_twice(redis_url, redis_client) -> None:
    services = services_for(redis_url)
    new_race(services, "g1", seats=2)
    message = services.bus.message("g1", 0, ROLL, "once")
    services.bus.submit_many([message, message])
    _worker(services).run(until_idle=True)
    assert [r.command_id for r in services.store.records("g1")] == [SETUP_ID, "once"]
    assert len(services.store.read("g1")) == 2


def test_a_stale_cached_state_is_reloaded_and_the_command_retried(redis_url, redis_client) -> None:
    services = services_for(redis_url)
    new_race(services, "g1", seats=2)
    worker = _worker(services)
    services.bus.submit("g1", 0, ROLL)
    worker.run(until_idle=True)
    other = _worker(services)
    services.bus.submit("g1", 1, ROLL, "by-other")
    other.run(until_idle=True)
    # The first worker's cache still holds the game at seq 2; its next command must conflict, reload, apply.
    assert worker.cache.get("g1") is not None and worker.cache.get("g1").seq == 2
    raw = codec.encode_inbox(services.bus.message("g1", 0, ROLL, "after"))
    entry = InboxEntry(partition=partition_for("g1", services.bus.partitions), entry_id=b"0-1", raw=raw)
    assert worker.process([entry]) == 1
    record = services.store.result("g1", "after", 0)
    assert record is not None and record.status == "applied" and record.first_seq == 4


def test_the_finishing_event_reveals_the_seed(redis_url, redis_client) -> None:
    services = services_for(redis_url)
    new_race(services, "g1", seats=1, goal=3)
    for _ in range(3):
        services.bus.submit("g1", 0, ROLL)
    _worker(services).run(until_idle=True)
    envelopes = services.store.read("g1")
    meta = services.store.meta("g1")
    assert meta.status == "finished"
    assert envelopes[-1].seed == meta.seed and all(e.seed is None for e in envelopes[:-1])


def test_the_worker_writes_snapshots_and_a_cold_load_from_one_equals_the_live_state(
    redis_url, redis_client
) -> None:
    from events import keys

    services = services_for(redis_url, snapshot_every=5)
    new_race(services, "g1", seats=2)
    for i in range(23):
        services.bus.submit("g1", i % 2, ROLL)
    worker = _worker(services)
    worker.run(until_idle=True)
    snap = msgspec.msgpack.decode(services.redis.get(keys.snapshot("g1")))
    assert snap["seq"] == 20
    live = worker.cache.get("g1") or services.store.load("g1")
    cold = services.store.load("g1")
    assert cold.seq == 24 and cold.hash == services.store.read("g1")[-1].hash
    assert msgspec.msgpack.encode(cold.state) == msgspec.msgpack.encode(live.state)


def test_each_folded_command_is_logged_with_game_command_seq_and_latency(redis_url, redis_client) -> None:
    import structlog

    from services import logging as hm_logging

    services = services_for(redis_url)
    new_race(services, "g1", seats=2)
    command_id = services.bus.submit("g1", 0, ROLL)
    hm_logging.configure("console", "debug", cache=False)
    try:
        with structlog.testing.capture_logs() as logs:
            _worker(services).run(until_idle=True)
    finally:
        hm_logging.configure("console", "warning", cache=False)
    folded = [entry for entry in logs if entry["event"] == "command_folded"]
    assert len(folded) == 1
    assert folded[0]["game_id"] == "g1" and folded[0]["command_id"] == command_id
    assert folded[0]["seq"] == 2 and folded[0]["latency_ms"] >= 0


def test_records_come_back_in_the_order_decided_applied_and_rejected_interleaved(
    redis_url, redis_client
) -> None:
    services = services_for(redis_url)
    new_race(services, "g1", seats=2)
    for command_id, seat in (("a", 0), ("r1", 0), ("b", 1), ("r2", 1), ("r3", 1), ("c", 0)):
        services.bus.submit("g1", seat, ROLL, command_id)
    _worker(services).run(until_idle=True)
    records = services.store.records("g1")
    assert [r.command_id for r in records] == [SETUP_ID, "a", "r1", "b", "r2", "r3", "c"]
    assert [r.status for r in records] == ["applied", "applied", "rejected", "applied"] + ["rejected"] * 2 + [
        "applied"
    ]
    # An applied command's record rides on its last event, with Redis's clock; a rejection's is in the log.
    last_event_of_b = services.redis.xrange(keys_events("g1"), min="3-0", max="3-0")[0][1]
    assert codec.decode_record(last_event_of_b[b"r"]).command_id == "b" and int(last_event_of_b[b"t"]) > 0
    assert len(services.redis.xrange(keys_commands("g1"))) == 3
