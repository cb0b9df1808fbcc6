"""A round's games created in batches (``events/create_batch.py``, issue 42): the same keys and the same
events, byte for byte, as ``EventStore.create`` game by game for the same seeds, set-up ids and clock; a game
that exists is left alone; a close run again (a retried job, the reconcile pass) creates nothing twice; and a
duplicate hook after the close leaves no stored outcomes for ever."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from events import keys
from events.create_batch import NewGame, create_many, loaded_new
from events.replica_ack import NotReplicated, ReplicaAck
from events.store import EventStore
from events.tournament_store import TournamentStore
from services import tournament_service as service
from services.bootstrap import require_rq
from tests.integration.stores.store_contract import store_on
from tests.support.pipeline import services_for
from tests.support.tournaments import fold_worker, race_tournament, roll_out, round_hook
from workers.jobs.round_results import OUTCOMES_TTL_MS, outcomes_key
from workers.jobs.tournament import after_decision, close_and_act, close_round_state

CREATED_MS = 1_790_000_000_000


def new_games(prefix: str, count: int) -> list[NewGame]:
    """Manila tables of 3 and 4 seats with bots in some seats, each with its own seed and set-up id."""
    return [
        NewGame(game_id=f"{prefix}-r2-t{n}", seats=3 + n % 2, seed=bytes([n + 1]) * 32,
                bots={0: "greedy", 2: "random"} if n % 3 else {}, setup_id=f"setup-{n:016x}")
        for n in range(count)
    ]  # fmt: skip


def create_one_by_one(store: EventStore, games: Sequence[NewGame]) -> None:
    for g in games:
        store.create("manila", g.game_id, g.seats, {}, g.seed, bots=g.bots, tournament=True,
                     setup_id=g.setup_id, created_ms=CREATED_MS)  # fmt: skip


def written(client: Any, game_ids: Sequence[str]) -> dict[Any, Any]:
    """Everything a creation writes for ``game_ids``: each game's keys by type and content (a stream's
    entries without ``t``, Redis's own clock at the append, checked present), and the games' entries in
    the game lists and ``CREATING``."""
    found: dict[Any, Any] = {}
    for g in game_ids:
        for key in (keys.events(g), keys.results(g), keys.commands(g), keys.meta(g), keys.snapshot(g)):
            kind = client.type(key)
            if kind == b"stream":
                entries = client.xrange(key)
                assert b"t" in entries[-1][1], (
                    "the set-up's record rides on its last event with Redis's clock"
                )
                found[key] = [(i, {f: v for f, v in fields.items() if f != b"t"}) for i, fields in entries]
            elif kind == b"hash":
                found[key] = client.hgetall(key)
            else:
                found[key] = (kind, client.get(key) if kind == b"string" else None)
        for index in (keys.GAMES_INDEX, keys.LIVE_GAMES, keys.CREATING):
            found[(index, g)] = client.zscore(index, g)
    return found


def assert_batch_writes_what_create_writes(store: EventStore, flush: Any) -> None:
    games = new_games("tbatch", 7)
    ids = [g.game_id for g in games]
    create_one_by_one(store, games)
    one_by_one = written(store.redis, ids)
    states = {g: store.load(g) for g in ids}
    flush()
    created = create_many(store, "manila", {}, games, tournament=True, created_ms=CREATED_MS)
    assert sorted(created) == sorted(ids)
    assert written(store.redis, ids) == one_by_one
    for g in ids:  # what the bots are started from without reading the game back is what a load finds
        fresh, loaded = loaded_new(store, created[g]), store.load(g)
        assert (fresh.state, fresh.seq, fresh.hash, fresh.meta) == (loaded.state, loaded.seq, loaded.hash,
                                                                   loaded.meta) == (
            states[g].state, states[g].seq, states[g].hash, states[g].meta)  # fmt: skip


def assert_an_existing_game_is_left_alone(store: EventStore) -> None:
    games = new_games("texists", 4)
    first = games[0]
    store.create("manila", first.game_id, first.seats, {}, b"\xee" * 32, tournament=True)
    before = written(store.redis, [first.game_id])
    created = create_many(store, "manila", {}, games, tournament=True)
    assert sorted(created) == sorted(g.game_id for g in games[1:])
    after = written(store.redis, [first.game_id])
    creating = (keys.CREATING, first.game_id)  # its entry is left for the reconciler, as create leaves it
    assert {k: v for k, v in after.items() if k != creating} == {
        k: v for k, v in before.items() if k != creating
    }
    assert store.meta(first.game_id).seed == b"\xee" * 32
    for g in games[1:]:
        assert store.meta(g.game_id).seed == g.seed and store.redis.zscore(keys.CREATING, g.game_id) is None


def test_a_batch_creates_the_keys_and_events_create_does(redis_url, redis_client) -> None:
    assert_batch_writes_what_create_writes(services_for(redis_url).store, redis_client.flushdb)


def test_a_batch_leaves_a_game_that_exists_alone(redis_url, redis_client) -> None:
    assert_an_existing_game_is_left_alone(services_for(redis_url).store)


def test_a_batch_larger_than_one_pipeline(redis_url, redis_client, monkeypatch) -> None:
    monkeypatch.setattr("events.create_batch.CREATE_BATCH", 3)  # 7 games: pipelines of 3, 3 and 1
    assert_batch_writes_what_create_writes(services_for(redis_url).store, redis_client.flushdb)


# --- a round's close run again ----------------------------------------------------------------------------


def test_a_close_run_again_creates_nothing_twice(redis_url, redis_client) -> None:
    services = services_for(redis_url)
    tid = race_tournament(services, redis_url, "tagain", rounds=2)
    hook = round_hook(services, redis_client, redis_url)
    worker = fold_worker(services, hook)
    roll_out(services, worker, list(service.load(services, tid).rounds[0].games))
    tournaments, rq = TournamentStore(services.redis), require_rq(services)
    decided = close_round_state(services.store, tournaments, tid, 1)
    after_decision(services.store, rq, decided, redis_url, services.bus.partitions, ())
    second = list(service.load(services, tid).rounds[1].games)
    opened = written(redis_client, second)
    listed = redis_client.zcard(keys.GAMES_INDEX)
    assert listed == 4 and all(opened[keys.meta(g)] for g in second)
    # The job retried after it acted; a second run of the close; the reconcile pass: nothing new.
    after_decision(services.store, rq, decided, redis_url, services.bus.partitions, ())
    assert (
        close_and_act(services.store, rq, tournaments, tid, 1, redis_url, services.bus.partitions, ()) == []
    )
    service.reconcile(services, redis_url, tid)
    assert written(redis_client, second) == opened and redis_client.zcard(keys.GAMES_INDEX) == listed
    # A crash before the second game was created: the pass creates that one alone.
    redis_client.delete(*(k for k in opened if isinstance(k, str) and second[1] in k))
    redis_client.zrem(keys.GAMES_INDEX, second[1])
    redis_client.zrem(keys.LIVE_GAMES, second[1])
    service.reconcile(services, redis_url, tid)
    again = written(redis_client, second)
    assert {k: v for k, v in again.items() if second[0] in str(k)} == {
        k: v for k, v in opened.items() if second[0] in str(k)
    }
    assert services.store.meta(second[1]).last_seq == 1 and redis_client.zcard(keys.GAMES_INDEX) == listed


def test_a_duplicate_hook_after_the_close_leaves_outcomes_that_expire(redis_url, redis_client) -> None:
    services = services_for(redis_url)
    tid = race_tournament(services, redis_url, "tlate", rounds=2)
    hook = round_hook(services, redis_client, redis_url)
    worker = fold_worker(services, hook)
    games = list(service.load(services, tid).rounds[0].games)
    roll_out(services, worker, games)
    assert 0 < redis_client.pttl(outcomes_key(tid, 1)) <= OUTCOMES_TTL_MS
    service.reconcile(services, redis_url, tid)  # closes round 1: its outcomes are dropped
    assert not redis_client.exists(outcomes_key(tid, 1))
    hook(games[0], services.store.load(games[0]))  # the fold worker's hook for a duplicate command
    assert 0 < redis_client.pttl(outcomes_key(tid, 1)) <= OUTCOMES_TTL_MS


def test_a_batch_unconfirmed_by_replicas_is_not_listed_as_create_is_not(redis_url, redis_client) -> None:
    """Under the replica acknowledgement a Redis with no replica confirms nothing: ``create`` raises after
    its script and leaves its game in ``CREATING`` unlisted (for the reconciler); a batch does the same."""
    store = store_on(redis_url, ReplicaAck(mode="wait", replicas=1, timeout_ms=50))
    games = new_games("tacked", 3)
    with pytest.raises(NotReplicated):
        create_one_by_one(store, games[:1])
    with pytest.raises(NotReplicated):
        create_many(store, "manila", {}, games[1:], tournament=True)
    for g in games:
        assert store.meta(g.game_id).seed == g.seed  # written on the master
        assert redis_client.zscore(keys.CREATING, g.game_id) is not None
        assert redis_client.zscore(keys.GAMES_INDEX, g.game_id) is None
