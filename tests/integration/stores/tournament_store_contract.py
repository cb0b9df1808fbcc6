"""The tournament store's contract (``events/tournament_store.py``), as one suite any Redis it runs on must pass:
a creation atomic and refused for a taken id, also when creators race for one id; appends checked on the
sequence number and chain hash they were decided on, so that workers racing with one decision append it
once and workers racing with different ones append one of them; loads equal to a fold of every event, also
while another client appends; the index of tournaments newest first; and a tournament set aside with its
reason. Run over a standalone Redis (``tests/integration/stores/test_tournament_store.py``) and over the local Cluster
(``tests/cluster/test_tournament_store_on_cluster.py``), where a tournament's keys share the slot
``{t:<id>}`` and the index has a slot of its own (the store sends its appends differently on each: a
pipeline on one Redis, the script on the tournament's node of a Cluster).

A concrete class provides the fixtures ``client`` (a flushed client of its Redis) and ``connect`` (a new
client of the same Redis, as another worker process would have)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

import msgspec
import pytest

from domain import GAMES
from domain.engine import seed_commitment
from domain.tournament import Entrant, State, TournamentCreated, TournamentSettings, fold
from domain.tournament import rules as tournament_rules
from events import keys
from events.store import AppendResult
from events.tournament_store import (
    FAILED_FIELD,
    MAX_FAILURE,
    LoadedTournament,
    TournamentExists,
    TournamentStore,
    UnknownTournament,
    decode,
    tournament_key,
)
from tests.support.tournaments import record_round

RACERS = 6
"""Threads racing for one compare-and-set, each with a client of its own."""
T = TypeVar("T")


def created(tid: str, players: int = 6, seed: bytes = b"\x07" * 16) -> TournamentCreated:
    """A two-round Manila Swiss tournament of bots, as ``tournament_rules.create`` records it."""
    manila = GAMES["manila"]
    settings = TournamentSettings(game="manila", rounds=2, table_size=3)
    entrants = [Entrant(name=f"bot{n}", bot="random") for n in range(players)]
    [event] = tournament_rules.create(
        tid, settings, entrants, min_seats=manila.min_seats, max_seats=manila.max_seats, pairing_seed=seed
    )
    assert isinstance(event, TournamentCreated)
    return event


def folded(store: TournamentStore, tid: str, to_seq: int | None = None) -> State:
    """A fold of every stored event (to ``to_seq``), from the first: what ``load`` must equal."""
    return fold([decode(e) for e in store.envelopes(tid) if to_seq is None or e.seq <= to_seq])


def race(clients: Sequence[Any], run: Callable[[Any], T]) -> list[T | BaseException]:
    """``run`` on each client in a thread of its own, all let go at once (a barrier); what each returned or
    raised, in the clients' order."""
    barrier = threading.Barrier(len(clients))
    outcomes: list[T | BaseException] = [RuntimeError("not run")] * len(clients)

    def one(index: int) -> None:
        barrier.wait()
        try:
            outcomes[index] = run(clients[index])
        except BaseException as exc:  # the outcome the test looks at
            outcomes[index] = exc

    threads = [threading.Thread(target=one, args=(n,)) for n in range(len(clients))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return outcomes


class TournamentStoreContract:
    """What the tournament store promises on any Redis; a subclass provides ``client`` and ``connect``."""

    @pytest.fixture
    def client(self) -> Any:
        raise NotImplementedError("a concrete suite names its Redis")

    @pytest.fixture
    def connect(self) -> Callable[[], Any]:
        raise NotImplementedError("a concrete suite names its Redis")

    @pytest.fixture
    def store(self, client: Any) -> TournamentStore:
        return TournamentStore(client)

    @pytest.fixture
    def racers(self, client: Any, connect: Callable[[], Any]) -> Iterator[list[TournamentStore]]:
        """A store on a client of its own for each racing thread (on the Redis ``client`` flushed)."""
        stores = [TournamentStore(connect()) for _ in range(RACERS)]
        yield stores
        for store in stores:
            store.redis.close()

    def test_create_writes_the_header_and_the_first_event_and_lists_the_tournament(
        self, store: TournamentStore, client: Any
    ) -> None:
        event = created("t1")
        header = store.create(event)
        assert (header.game_id, header.game, header.seats) == ("t1", "tournament:manila", 6)
        assert header.seed_commitment == seed_commitment(event.pairing_seed)
        assert store.header("t1") == header
        [first] = store.envelopes("t1")
        assert (first.seq, decode(first)) == (1, event)
        loaded = store.load("t1")
        assert (loaded.header, loaded.seq, loaded.hash) == (header, 1, first.hash)
        assert loaded.state == fold([event]) and loaded.state.status == "created"
        assert client.hget(tournament_key("t1", "meta"), "status") == b"created"
        assert store.list() == ["t1"]

    def test_a_second_create_of_a_taken_id_is_refused_and_changes_nothing(
        self, store: TournamentStore
    ) -> None:
        header = store.create(created("t1"))
        with pytest.raises(TournamentExists):
            store.create(created("t1", players=9, seed=b"\x08" * 16))
        assert store.header("t1") == header and len(store.envelopes("t1")) == 1
        assert len(store.load("t1").state.entrants) == 6 and store.list() == ["t1"]

    def test_creators_racing_for_one_id_leave_one_tournament(self, racers: list[TournamentStore]) -> None:
        events = [created("contested", seed=bytes([n]) * 16) for n in range(len(racers))]
        outcomes = race(racers, lambda store: store.create(events[racers.index(store)]))
        won = [n for n, outcome in enumerate(outcomes) if not isinstance(outcome, BaseException)]
        assert len(won) == 1, outcomes
        assert all(isinstance(outcomes[n], TournamentExists) for n in range(len(racers)) if n not in won)
        [first] = racers[0].envelopes("contested")
        assert decode(first) == events[won[0]] and racers[0].header("contested") == outcomes[won[0]]
        assert racers[0].list() == ["contested"]

    def test_a_create_cut_off_before_its_index_is_listed_by_the_retry_it_refuses(
        self, store: TournamentStore, client: Any
    ) -> None:
        """The index is in another slot than the tournament (a Cluster), so it is written after the
        creation's script: a creator killed in between leaves it unlisted, and its retry (refused: the id is
        taken) lists it, at the time it was created."""
        header = store.create(created("cut"))
        client.zrem(keys.TOURNAMENTS, "cut")  # the state a creator killed after its script leaves
        assert store.list() == []
        with pytest.raises(TournamentExists):
            store.create(created("cut"))
        assert store.list() == ["cut"]
        assert client.zscore(keys.TOURNAMENTS, "cut") == header.created_ms

    def test_the_index_lists_newest_first_and_pages(self, store: TournamentStore) -> None:
        headers = [store.create(created(f"t{n}")) for n in range(7)]
        newest_first = [
            h.game_id for h in sorted(headers, key=lambda h: (h.created_ms, h.game_id), reverse=True)
        ]
        assert store.list() == newest_first
        assert store.list(2, 3) == newest_first[2:5]
        assert store.list(6, 50) == newest_first[6:] and store.list(7, 50) == []
        assert store.list(0, 0) == [] and store.list(3, -1) == []  # no page, not every tournament
        assert store.list(-2, 2) == newest_first[:2]  # a page before the first is the first

    def test_append_numbers_the_events_after_the_loaded_seq_and_shows_the_new_status(
        self, store: TournamentStore, client: Any
    ) -> None:
        store.create(created("t1"))
        loaded = store.load("t1")
        events = tournament_rules.start(loaded.state)
        result = store.append(loaded, "start", events)
        assert (result.status, result.first_seq, result.last_seq) == ("ok", 2, 1 + len(events))
        after = store.load("t1")
        assert after.seq == result.last_seq and after.hash == store.envelopes("t1")[-1].hash
        assert after.state == folded(store, "t1") and after.state.status == "running"
        assert client.hget(tournament_key("t1", "meta"), "status") == b"running"
        assert [e.seq for e in store.envelopes("t1")] == list(range(1, after.seq + 1))

    def test_a_decision_appended_again_is_a_duplicate_that_writes_nothing(
        self, store: TournamentStore
    ) -> None:
        store.create(created("t1"))
        loaded = store.load("t1")
        events = tournament_rules.start(loaded.state)
        assert store.append(loaded, "start", events).status == "ok"
        seq = store.load("t1").seq
        for at in (loaded, store.load("t1")):  # on the state it was decided on, and on the newer one
            again = store.append(at, "start", events)
            assert again.status == "dup" and again.record is not None
            assert (again.record.command_id, again.record.first_seq, again.record.last_seq) == (
                "start",
                2,
                seq,
            )
        assert store.load("t1").seq == seq

    def test_an_append_on_a_stale_seq_or_another_chain_conflicts_and_writes_nothing(
        self, store: TournamentStore
    ) -> None:
        store.create(created("t1"))
        stale = store.load("t1")
        assert store.append(stale, "start", tournament_rules.start(stale.state)).status == "ok"
        now = store.load("t1")
        conflict = store.append(stale, "cancel", tournament_rules.cancel(stale.state))
        assert (conflict.status, conflict.current_seq) == ("conflict", now.seq)
        other_chain = msgspec.structs.replace(now, hash="0" * 64)  # the same seq, another tournament's events
        assert store.append(other_chain, "cancel", tournament_rules.cancel(now.state)).status == "conflict"
        assert store.load("t1").seq == now.seq and store.load("t1").state.status == "running"

    def test_workers_racing_with_one_decision_append_it_once(self, racers: list[TournamentStore]) -> None:
        racers[0].create(created("t1"))
        loaded = racers[0].load("t1")
        events = tournament_rules.start(loaded.state)
        outcomes = race(racers, lambda store: store.append(loaded, "start", events))
        statuses = sorted(_status(outcome) for outcome in outcomes)
        assert statuses == ["dup"] * (len(racers) - 1) + ["ok"]
        assert racers[0].load("t1").seq == 1 + len(events)
        assert racers[0].load("t1").state == folded(racers[0], "t1")

    def test_workers_racing_with_different_decisions_on_one_state_append_one(
        self, racers: list[TournamentStore]
    ) -> None:
        racers[0].create(created("t1"))
        loaded = racers[0].load("t1")
        decisions = [("start", tournament_rules.start(loaded.state))] + [
            (f"cancel-{n}", tournament_rules.cancel(loaded.state, f"reason {n}"))
            for n in range(len(racers) - 1)
        ]
        outcomes = race(racers, lambda store: store.append(loaded, *decisions[racers.index(store)]))
        won = [n for n, outcome in enumerate(outcomes) if _status(outcome) == "ok"]
        assert len(won) == 1, outcomes
        after = racers[0].load("t1")
        assert after.seq == 1 + len(decisions[won[0]][1])
        assert all(
            _status(outcomes[n]) == "conflict" and _current(outcomes[n]) == after.seq
            for n in range(len(racers))
            if n not in won
        ), outcomes
        assert after.state == folded(racers[0], "t1")
        assert after.state.status == ("running" if won == [0] else "cancelled")

    def test_loads_racing_with_appends_each_equal_a_fold_of_the_events_to_their_seq(
        self, racers: list[TournamentStore]
    ) -> None:
        """One client records the rounds while the others load; each load is a fold of a prefix of the
        stream (the process keeps a tournament's last fold, shared by its threads)."""
        writer = racers[0]
        writer.create(created("t1"))
        loaded = writer.load("t1")
        assert writer.append(loaded, "start", tournament_rules.start(loaded.state)).status == "ok"
        seen: list[LoadedTournament] = []

        def load_or_record(store: TournamentStore) -> None:
            if store is writer:
                for number in (1, 2):
                    record_round(writer, "t1", number)
                return
            for _ in range(20):
                seen.append(store.load("t1"))

        assert all(outcome is None for outcome in race(racers, load_or_record))
        envelopes = writer.envelopes("t1")
        for one in seen:
            assert one.hash == envelopes[one.seq - 1].hash and one.state == folded(writer, "t1", one.seq)
        last = writer.load("t1")
        assert (last.seq, last.state.status) == (len(envelopes), "finished")

    def test_an_unknown_tournament_is_refused_by_every_reader_and_writer(
        self, store: TournamentStore
    ) -> None:
        store.create(created("t1"))
        elsewhere = store.load("t1")
        stranger = msgspec.structs.replace(
            elsewhere, header=msgspec.structs.replace(elsewhere.header, game_id="nope")
        )
        with pytest.raises(UnknownTournament):
            store.append(stranger, "start", tournament_rules.start(elsewhere.state))
        for read in (store.header, store.load):
            with pytest.raises(UnknownTournament):
                read("nope")
        assert store.envelopes("nope") == [] and store.failure("nope") is None

    def test_a_tournament_set_aside_keeps_its_reason_outside_its_events(
        self, store: TournamentStore, client: Any
    ) -> None:
        store.create(created("t1"))
        before = store.load("t1")
        assert store.failure("t1") is None
        store.mark_failed("t1", "é" * (MAX_FAILURE + 20))
        assert store.failure("t1") == "é" * MAX_FAILURE
        assert client.hget(tournament_key("t1", "meta"), "status") == b"created"
        assert store.envelopes("t1")[-1].seq == before.seq and store.load("t1").state == before.state
        client.hdel(tournament_key("t1", "meta"), FAILED_FIELD)  # an operator clears it
        assert store.failure("t1") is None

    def test_an_unknown_tournament_cannot_be_set_aside_before_it_exists(self, store: TournamentStore) -> None:
        """Setting aside an id nobody created writes nothing: else a tournament created under it later
        would be set aside from its first event."""
        with pytest.raises(UnknownTournament):
            store.mark_failed("later", "a stale round job")
        store.create(created("later"))
        assert store.failure("later") is None


def _status(outcome: AppendResult | BaseException) -> str:
    return outcome.status if isinstance(outcome, AppendResult) else repr(outcome)


def _current(outcome: AppendResult | BaseException) -> int:
    return outcome.current_seq if isinstance(outcome, AppendResult) else -1
