"""The event store's contract (``events/store.py``), as one suite of tests any Redis it runs on must pass: run
once over a standalone Redis (``tests/integration/stores/test_event_store.py``) and once over the local Redis Cluster
(``tests/cluster/test_event_store_on_cluster.py``), as pyeventsourcing runs its abstract suites once per
adapter. The store takes either client and sends its appends differently on each (a pipeline on one Redis,
the script on the game's node of a Cluster, whose pipeline refuses scripts), so each case runs on both.

A concrete class names its Redis with the fixture ``url`` (flushed before and after each test); what only
one kind of Redis can show (a replica's acknowledgement) stays in its own module.
"""

from __future__ import annotations

import secrets
from pathlib import Path

import msgspec
import pytest

from domain.engine import RuleViolation, decide_at
from events import codec
from events.chain import envelopes_for
from events.envelope import CommandRecord
from events.errors import GameExists, SequenceConflict, UnknownGame
from events.replica_ack import ReplicaAck
from events.store import AppendItem, EventStore, now_ms
from services.bootstrap import build
from services.config import Settings
from tests.conftest import TEST_GAMES
from tests.support.minimal_game import Roll
from tests.support.pipeline import COUNTER_PLUGIN, RACE_PLUGIN, SETUP_ID

ROLL = b'{"type":"Roll"}'


def store_on(url: str, replica_ack: ReplicaAck | None = None) -> EventStore:
    """The store as ``harbormaster`` builds it on ``url`` (``services/bootstrap.py``: the Cluster's client on a
    Cluster), knowing the test games."""
    settings = Settings(
        redis_url=url,
        data_dir=Path(".harbormaster-test").resolve(),
        game_plugins=(RACE_PLUGIN, COUNTER_PLUGIN),
        replica_ack=replica_ack or ReplicaAck(),
    )
    return build(settings, url, games=TEST_GAMES).store


def new_race(store: EventStore, game_id: str, seats: int = 2) -> None:
    store.create("race", game_id, seats, {"goal": 10_000}, secrets.token_bytes(32))


def decided_roll(
    store: EventStore,
    game_id: str,
    command_id: str,
    seat: int | None = None,
    at_seq: int | None = None,
    at_hash: str | None = None,
) -> AppendItem:
    """A roll decided on the game as the store has it now, as the fold worker decides it (by the seat to
    move unless ``seat`` is given): a rejection when the rules refuse it (an earlier try of the same command
    applied), else its events. ``at_seq`` and ``at_hash`` claim another position than the stored one."""
    loaded = store.load(game_id)
    seat = loaded.state.turn if seat is None else seat
    seq = loaded.seq if at_seq is None else at_seq
    previous = loaded.hash if at_hash is None else at_hash
    try:
        events = decide_at(loaded.game, loaded.state, seat, Roll(), loaded.meta.seed, loaded.seq)
    except RuleViolation as exc:
        record = CommandRecord(
            command_id=command_id, seat=seat, command=ROLL, status="rejected", at_seq=seq,
            code=exc.code, message=exc.message,
        )  # fmt: skip
        return AppendItem(record=record, envelopes=(), at_hash=previous)
    envelopes = envelopes_for(game_id, events, seq, previous, command_id, seat, now_ms())
    record = CommandRecord(
        command_id=command_id, seat=seat, command=ROLL, status="applied", at_seq=seq,
        first_seq=seq + 1, last_seq=seq + len(envelopes),
    )  # fmt: skip
    return AppendItem(record=record, envelopes=envelopes, at_hash=previous)


class EventStoreContract:
    """What the event store promises on any Redis; a subclass provides the fixture ``url``."""

    @pytest.fixture
    def url(self) -> str:
        raise NotImplementedError("a concrete suite names its Redis")

    @pytest.fixture
    def store(self, url: str) -> EventStore:
        return store_on(url)

    def test_create_writes_the_opening_events_and_refuses_a_second_create(self, store: EventStore) -> None:
        new_race(store, "g1")
        assert [e.seq for e in store.read("g1")] == [1]
        with pytest.raises(GameExists):
            new_race(store, "g1")

    def test_a_created_game_is_listed_live_until_it_is_marked_finished(self, store: EventStore) -> None:
        new_race(store, "g1")
        new_race(store, "g2")
        assert store.list_games() == ["g2", "g1"]  # newest first (in one millisecond: by id, descending)
        assert store.count_games(live_only=True) == 2
        store.mark_finished("g1")
        assert store.list_games(live_only=True) == ["g2"]
        assert (store.count_games(), store.count_games(live_only=True)) == (2, 1)
        meta = store.meta("g1")
        assert (meta.header.game, meta.last_seq, meta.status) == ("race", 1, "live")
        with pytest.raises(UnknownGame):
            store.meta("nope")

    def test_append_numbers_events_without_gaps_and_records_the_result(self, store: EventStore) -> None:
        new_race(store, "g1")
        result = store.append("g1", decided_roll(store, "g1", "c1"))
        assert (result.status, result.first_seq, result.last_seq) == ("ok", 2, 2)
        store.append("g1", decided_roll(store, "g1", "c2"))
        assert [e.seq for e in store.read("g1")] == [1, 2, 3]
        assert [e.seq for e in store.read("g1", after_seq=2)] == [3]
        record = store.result("g1", "c2", 1)  # seat 1's roll: a result is found by its sender
        assert record is not None and (record.first_seq, record.last_seq) == (3, 3)
        assert store.meta("g1").last_seq == 3

    def test_a_stale_expected_sequence_is_refused(self, store: EventStore) -> None:
        new_race(store, "g1")
        store.append("g1", decided_roll(store, "g1", "c1"))
        with pytest.raises(SequenceConflict) as refused:
            store.append("g1", decided_roll(store, "g1", "c2", at_seq=1))
        assert refused.value.actual == 2
        assert len(store.read("g1")) == 2

    def test_a_decision_on_another_history_is_refused_even_at_the_right_sequence(
        self, store: EventStore
    ) -> None:
        new_race(store, "g1")
        with pytest.raises(SequenceConflict):
            store.append("g1", decided_roll(store, "g1", "c1", at_hash="00" * 32))
        assert len(store.read("g1")) == 1

    def test_a_repeated_command_id_returns_the_first_result_and_appends_nothing(
        self, store: EventStore
    ) -> None:
        new_race(store, "g1")
        first = store.append("g1", decided_roll(store, "g1", "c1", seat=0))
        # Decided afresh by seat 0, the retry is refused by the rules, and is still answered as a repeat.
        again = store.append("g1", decided_roll(store, "g1", "c1", seat=0))
        assert first.status == "ok"
        assert again.status == "dup" and again.record is not None and again.record.first_seq == 2
        assert len(store.read("g1")) == 2
        assert [r.command_id for r in store.records("g1")] == [SETUP_ID, "c1"]

    def test_a_rejection_appends_no_event_and_is_recorded_in_the_order_decided(
        self, store: EventStore
    ) -> None:
        new_race(store, "g1")
        early = decided_roll(store, "g1", "early", seat=1)  # not seat 1's turn: a rejection
        assert store.append("g1", early).status == "ok"
        store.append("g1", decided_roll(store, "g1", "c1"))
        assert [e.seq for e in store.read("g1")] == [1, 2]
        rejected = store.result("g1", "early", 1)
        assert rejected is not None and rejected.status == "rejected" and rejected.at_seq == 1
        assert [r.command_id for r in store.records("g1")][1:] == ["early", "c1"]

    def test_a_cold_load_from_a_snapshot_equals_a_load_from_the_events(self, store: EventStore) -> None:
        new_race(store, "g1")
        for i in range(7):
            store.append("g1", decided_roll(store, "g1", f"c{i}"))
        full = store.load("g1")
        game = store.games["race"]
        decoded = [codec.decode_event(game, e) for e in store.read("g1")]
        pipe = store.redis.pipeline()
        store.save_snapshot(pipe, "g1", full.seq - 2, "x", game.fold(decoded[: full.seq - 2]))
        pipe.execute()
        snapshotted = store.load("g1")
        assert msgspec.msgpack.encode(snapshotted.state) == msgspec.msgpack.encode(full.state)
        assert snapshotted.seq == full.seq
