"""The event store on a real Redis: atomic append, the sequence and command-id checks, reads, snapshots."""

from __future__ import annotations

import msgspec
import pytest

from domain.engine import decide_at
from events.chain import envelopes_for
from events.envelope import CommandRecord
from events.errors import GameExists, SequenceConflict
from events.store import AppendItem, now_ms
from tests.support.minimal_game import Roll
from tests.support.pipeline import SETUP_ID, new_race, services_for

pytestmark = pytest.mark.redis


def _roll_record(command_id: str, at_seq: int, n_events: int) -> CommandRecord:
    return CommandRecord(
        command_id=command_id, seat=0, command=b'{"type":"Roll"}', status="applied", at_seq=at_seq,
        first_seq=at_seq + 1, last_seq=at_seq + n_events,
    )  # fmt: skip


def _append_roll(
    services, game_id: str, command_id: str, at_seq: int | None = None, at_hash: str | None = None
):
    loaded = services.store.load(game_id)
    seat = loaded.state.turn
    events = decide_at(loaded.game, loaded.state, seat, Roll(), loaded.meta.seed, loaded.seq)
    seq = loaded.seq if at_seq is None else at_seq
    prev = loaded.hash if at_hash is None else at_hash
    envelopes = envelopes_for(game_id, events, seq, prev, command_id, seat, now_ms())
    item = AppendItem(record=_roll_record(command_id, seq, len(envelopes)), envelopes=envelopes, at_hash=prev)
    return services.store.append(game_id, item)


def test_create_writes_the_opening_events_and_refuses_a_second_create(redis_url, redis_client) -> None:
    services = services_for(redis_url)
    new_race(services, "g1")
    assert [e.seq for e in services.store.read("g1")] == [1]
    with pytest.raises(GameExists):
        new_race(services, "g1")


def test_append_numbers_events_without_gaps_and_records_the_result(redis_url, redis_client) -> None:
    services = services_for(redis_url)
    new_race(services, "g1")
    result = _append_roll(services, "g1", "c1")
    assert (result.status, result.first_seq, result.last_seq) == ("ok", 2, 2)
    _append_roll(services, "g1", "c2")
    assert [e.seq for e in services.store.read("g1")] == [1, 2, 3]
    assert [e.seq for e in services.store.read("g1", after_seq=2)] == [3]
    record = services.store.result("g1", "c2", 0)
    assert record is not None and (record.first_seq, record.last_seq) == (3, 3)


def test_a_stale_expected_sequence_is_refused(redis_url, redis_client) -> None:
    services = services_for(redis_url)
    new_race(services, "g1")
    _append_roll(services, "g1", "c1")
    with pytest.raises(SequenceConflict) as refused:
        _append_roll(services, "g1", "c2", at_seq=1)
    assert refused.value.actual == 2
    assert len(services.store.read("g1")) == 2


def test_a_decision_on_another_history_is_refused_even_at_the_right_sequence(redis_url, redis_client) -> None:
    services = services_for(redis_url)
    new_race(services, "g1")
    with pytest.raises(SequenceConflict):
        _append_roll(services, "g1", "c1", at_hash="00" * 32)
    assert len(services.store.read("g1")) == 1


def test_a_repeated_command_id_returns_the_first_result_and_appends_nothing(redis_url, redis_client) -> None:
    services = services_for(redis_url)
    new_race(services, "g1")
    first = _append_roll(services, "g1", "c1")
    again = _append_roll(services, "g1", "c1")
    assert first.status == "ok"
    assert again.status == "dup" and again.record is not None and again.record.first_seq == 2
    assert len(services.store.read("g1")) == 2
    assert [r.command_id for r in services.store.records("g1")] == [SETUP_ID, "c1"]


def test_a_cold_load_from_a_snapshot_equals_a_load_from_the_events(redis_url, redis_client) -> None:
    services = services_for(redis_url, snapshot_every=3)
    new_race(services, "g1")
    for i in range(7):
        _append_roll(services, "g1", f"c{i}")
    full = services.store.load("g1")
    pipe = services.redis.pipeline()
    services.store.save_snapshot(pipe, "g1", full.seq - 2, "x", services.store.games["race"].fold(
        [e for e in _decoded(services, "g1")][: full.seq - 2]
    ))  # fmt: skip
    pipe.execute()
    snapshotted = services.store.load("g1")
    assert msgspec.msgpack.encode(snapshotted.state) == msgspec.msgpack.encode(full.state)
    assert snapshotted.seq == full.seq


def _decoded(services, game_id):
    from events import codec

    game = services.store.games["race"]
    return [codec.decode_event(game, e) for e in services.store.read(game_id)]
