"""The log's sequencer over real games played by the server's bots on a real Redis: each game's start, its heads
as it grows and its finished head, every checkpoint consistent with the one before; a game that ended, left
the live set and was trimmed before any round still gets its final head; two sequencers at once write one
history; a sequencer started again goes on where the log stands."""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import redis

from events import keys
from events.archived import trim
from events.chain import genesis
from events.log_store import Appended, ChainHead, LogError, LogStore, enqueue
from events.tlog import leaves, merkle, note
from events.tlog.checkpoint import open_checkpoint
from events.tlog.seal import seal
from services.bootstrap import Services
from tests.support.pipeline import services_for
from workers.fold import FoldWorker
from workers.jobs.bots import moves_at
from workers.log_sequencer import LogSequencer, Observed, plan

GAMES = (("manila", 3), ("elcapitan", 2), ("eic", 2))


@pytest.fixture
def services(redis_url: str, redis_client: redis.Redis) -> Iterator[Services]:
    yield services_for(redis_url)


@pytest.fixture
def signer() -> note.Signer:
    return note.Signer.generate("harbormaster.test/log")


def create_bot_games(services: Services, prefix: str) -> list[str]:
    made = []
    for key, seats in GAMES:
        game_id = f"{prefix}-{key}"
        services.store.create(
            key,
            game_id,
            seats,
            {},
            game_id.encode().ljust(32, b"."),
            bots=dict.fromkeys(range(seats), "greedy"),
        )
        made.append(game_id)
    return made


def play_round(services: Services, worker: FoldWorker, game_ids: list[str]) -> bool:
    """Each unfinished game's bot moves, folded; whether any game is still live."""
    bus, live = services.bus, False
    for game_id in game_ids:
        loaded = services.store.load(game_id)
        moves = moves_at(loaded)
        if moves:
            live = True
            bus.submit_many(bus.message(game_id, s, c, cid, origin="bot") for s, c, cid in moves)
    worker.bus.ensure_groups()
    if not worker.leases.owned:
        worker.leases.heartbeat()
    worker.process(bus.read(worker.worker_id, sorted(worker.leases.owned), 10, 1000))
    return live


def the_log(log: LogStore, signer: note.Signer) -> list[leaves.Leaf]:
    """Every leaf, after checking that each stored checkpoint verifies and is consistent with every later one,
    and that the leaves rebuild the latest one's root."""
    stored = log.checkpoints()
    opened = [open_checkpoint(text, signer.verifier, signer.name) for _, text in stored]
    for older, newer in itertools.pairwise(opened):
        proof = log.consistency_proof(older.size, newer.size)
        merkle.verify_consistency(older.size, newer.size, older.root, newer.root, proof)
    data = log.leaves(0, log.size())
    tree = merkle.MemoryTree()
    for datum in data:
        tree.append(datum)
    assert opened[-1].size == tree.size and opened[-1].root == tree.root()
    return [leaves.decode(d) for d in data]


def test_bot_games_are_logged_start_heads_and_finish(services: Services, signer: note.Signer) -> None:
    game_ids = create_bot_games(services, "log")
    sequencer = LogSequencer(services.redis, signer)
    sequencer.publish()
    worker = FoldWorker(services.redis, services.store, services.bus, block_ms=10)
    rounds = 0
    while play_round(services, worker, game_ids):
        rounds += 1
        if rounds % 7 == 0:
            sequencer.tick()
        assert rounds < 5000
    sequencer.tick()
    assert sequencer.tick() == 0  # nothing moved: nothing appended, no new checkpoint
    logged = the_log(sequencer.store, signer)
    for game_id in game_ids:
        meta = services.store.meta(game_id)
        mine = [leaf for leaf in logged if getattr(leaf, "id", None) == game_id]
        assert mine[0] == leaves.Start(
            stream="game",
            id=game_id,
            genesis=genesis(meta.header),
            seed_commitment=meta.header.seed_commitment,
        )
        heads = mine[1:]
        assert len(heads) >= 3
        assert [h.seq for h in heads] == sorted({h.seq for h in heads})  # growing, never twice
        assert heads[-1] == leaves.Head(
            stream="game", id=game_id, seq=meta.last_seq, hash=meta.last_hash, finished=True
        )
        # While it was live, each head was sealed with the game's seed: its hash would give away what is
        # hidden; now that the seed is out, every seal is the one of the stored chain at that event.
        hashes = {e.seq: e.hash for e in services.store.read(game_id)}
        for live in heads[:-1]:
            assert isinstance(live, leaves.Sealed)
            assert live.seal == seal(meta.seed, game_id, live.seq, hashes[live.seq])
        chain = sequencer.store.chain("game", game_id, newest=1000)
        assert [seq for _, seq in chain] == [h.seq for h in reversed(heads)] + [0]
    assert sequencer.store.open_chains() == []


def test_a_game_that_ended_and_was_trimmed_before_any_round_gets_its_final_head(
    services: Services, signer: note.Signer
) -> None:
    [game_id, *_] = create_bot_games(services, "gone")
    worker = FoldWorker(services.redis, services.store, services.bus, block_ms=10)
    while play_round(services, worker, [game_id]):
        pass
    assert services.redis.zscore(keys.LIVE_GAMES, game_id) is None  # left the live set when it ended
    trim(services.redis, game_id, "/nowhere/archived.jsonl.gz")
    sequencer = LogSequencer(services.redis, signer)
    sequencer.publish()
    assert sequencer.tick() == 2 + 4  # this game's start and head, and the other two's (never played)
    meta = services.store.meta(game_id)
    logged = the_log(sequencer.store, signer)
    assert (
        leaves.Head(stream="game", id=game_id, seq=meta.last_seq, hash=meta.last_hash, finished=True)
        in logged
    )


def test_plan_starts_new_chains_and_logs_moved_and_finished_heads() -> None:
    start = leaves.Start(stream="game", id="a", genesis="g", seed_commitment="c")
    seen = [
        Observed("game", "a", 5, "h5", False, start),
        Observed("game", "b", 9, "h9", True),
        Observed("game", "c", 4, "h4", True),
        Observed("tournament", "t", 2, "x2", False),
    ]
    logged = {
        "game:b": leaves_head(9, "h9"),
        "game:c": leaves_head(4, "h4"),
        "tournament:t": leaves_head(2, "x2"),
    }
    opened = {"game:b", "tournament:t"}
    assert plan(seen, logged, opened) == [
        start,
        leaves.Head(stream="game", id="a", seq=5, hash="h5"),
        leaves.Head(stream="game", id="b", seq=9, hash="h9", finished=True),  # ended, same head: said once
    ]


def leaves_head(seq: int, chain_hash: str) -> ChainHead:
    return ChainHead(seq, chain_hash)


def test_two_sequencers_at_once_write_one_history(services: Services, signer: note.Signer) -> None:
    game_ids = create_bot_games(services, "race")
    sequencers = [
        LogSequencer(client, signer, interval_s=0.01, lease_ttl_ms=40)
        for client in (services.redis, services_for_same(services))
    ]
    sequencers[0].publish()
    refused: list[str] = []
    for sequencer in sequencers:
        sequencer.store.append = late_every_other_time(sequencer.store.append, refused)  # type: ignore[method-assign]
    threads = [threading.Thread(target=s.run, daemon=True) for s in sequencers]
    for thread in threads:
        thread.start()
    worker = FoldWorker(services.redis, services.store, services.bus, block_ms=10)
    while play_round(services, worker, game_ids):
        pass
    time.sleep(0.5)
    for sequencer in sequencers:
        sequencer.stopping.set()
    for thread in threads:
        thread.join(timeout=10)
    assert all(s.appended > 0 for s in sequencers), [s.appended for s in sequencers]
    assert any("lease" in reason for reason in refused), refused  # they did race, and one was refused
    store = sequencers[0].store
    logged = the_log(store, signer)
    for game_id in game_ids:
        heads = [leaf for leaf in logged if isinstance(leaf, leaves.Head) and leaf.id == game_id]
        assert [h.seq for h in heads] == sorted({h.seq for h in heads}) and heads[-1].finished
        assert sum(isinstance(leaf, leaves.Start) and leaf.id == game_id for leaf in logged) == 1
    opened = [open_checkpoint(text, signer.verifier) for _, text in store.checkpoints()]
    for a in opened:  # every checkpoint consistent with every other
        for b in opened:
            if a.size <= b.size:
                merkle.verify_consistency(
                    a.size, b.size, a.root, b.root, store.consistency_proof(a.size, b.size)
                )


def late_every_other_time(append: Callable[..., Appended], refused: list[str]) -> Callable[..., Appended]:
    """``append``, but every other call waits past the lease's time to live before it writes: the other
    sequencer takes the lease meanwhile and appends, and this write must be refused, writing nothing."""
    calls = itertools.count()

    def late(*args: Any, **kwargs: Any) -> Appended:
        if next(calls) % 2:
            time.sleep(0.06)
        try:
            return append(*args, **kwargs)
        except LogError as exc:
            refused.append(str(exc))
            raise

    return late


def services_for_same(services: Services) -> redis.Redis:
    return redis.Redis(connection_pool=services.redis.connection_pool)


def test_a_sequencer_started_again_goes_on_and_a_rotated_key_signs_anew(
    services: Services, signer: note.Signer
) -> None:
    create_bot_games(services, "again")
    first = LogSequencer(services.redis, signer)
    first.publish()
    assert first.tick() == 6
    first.store.release(first.token)
    rotated = note.Signer.generate(signer.name)
    later = LogSequencer(services.redis, rotated, retired=[signer.verifier.vkey])
    later.publish()
    assert later.tick() == 0  # nothing new, but the checkpoint is signed again with the new key
    text = later.store.checkpoint()
    assert text is not None and open_checkpoint(text, rotated.verifier).size == 6
    assert [size for size, _ in later.store.checkpoints()] == [6, 6]


def test_queued_leaves_are_logged_after_the_heads_and_anything_else_is_dropped(
    services: Services, signer: note.Signer
) -> None:
    rating = leaves.Rating(account="ann", game_id="g", mu=26.1, sigma=7.9, place=1)
    commands = leaves.Commands(stream="game", id="g", last_seq=9, count=4, digest="ab" * 32)
    enqueue(services.redis, rating)
    services.redis.xadd(keys.LOG_QUEUE, {"leaf": b"not a leaf"})
    services.redis.xadd(
        keys.LOG_QUEUE, {"leaf": leaves.encode(leaves.Head(stream="game", id="g", seq=1, hash="x"))}
    )
    enqueue(services.redis, commands)
    create_bot_games(services, "q")
    sequencer = LogSequencer(services.redis, signer)
    sequencer.publish()
    assert sequencer.tick() == 6 + 2
    logged = the_log(sequencer.store, signer)
    assert logged[-2:] == [rating, commands]  # after the chains' leaves; a head only the sequencer writes
    assert services.redis.xlen(keys.LOG_QUEUE) == 0


def test_a_sequencer_whose_published_key_was_lost_publishes_it_again(
    services: Services, signer: note.Signer, redis_client: redis.Redis
) -> None:
    create_bot_games(services, "lost")
    sequencer = LogSequencer(services.redis, signer)
    sequencer.publish()
    assert sequencer.tick() == 6
    redis_client.delete(keys.LOG_KEY)  # an operator's mistake, or a Redis restored without it
    create_bot_games(services, "later")
    assert sequencer.tick() == 0  # refused (the script checks the published key), published again ...
    assert sequencer.tick() == 6  # ... and the next round goes on
    assert len(the_log(sequencer.store, signer)) == 12


def test_a_record_of_the_wrong_type_is_passed_over_and_the_others_logged(
    services: Services, signer: note.Signer
) -> None:
    """A tournament index entry whose meta key holds a string (a record no version wrote) once made
    ``HMGET`` fail the whole round, and the sequencer died under serve at every restart."""
    [game_id, *_] = create_bot_games(services, "beside")
    services.redis.zadd("hm:tournaments", {"poison-wrongtype": time.time() * 1000})
    services.redis.set("hm:{t:poison-wrongtype}:meta", "not a hash")
    sequencer = LogSequencer(services.redis, signer)
    sequencer.publish()
    assert sequencer.tick() > 0
    logged = the_log(sequencer.store, signer)
    assert any(isinstance(leaf, leaves.Start) and leaf.id == game_id for leaf in logged)
    assert not any(getattr(leaf, "id", None) == "poison-wrongtype" for leaf in logged)
