"""The transparency log's contract (``events/log_store.py``), as one suite any Redis it runs on must pass: appends
under the lease and the compare-and-set, nodes and proofs equal to those of a whole tree in memory, and the
chains' sorted sets, heads and open set written with the leaves. Run over a standalone Redis
(``tests/integration/stores/test_log_store.py``) and over the local Cluster (``tests/cluster/test_log_on_cluster.py``),
where every key of the log shares the slot ``{log}``. A concrete class provides the fixture ``client``, a
flushed client of its Redis."""

from __future__ import annotations

import random
from typing import Any

import pytest

from events import keys
from events.log_store import ChainHead, LogError, LogStore, new_token
from events.tlog import leaves, merkle, note
from events.tlog.checkpoint import open_checkpoint


def datum(i: int) -> bytes:
    return leaves.encode(leaves.Head(stream="game", id=f"g{i % 7}", seq=i + 1, hash=f"{i:064x}"))


class LogStoreContract:
    """What the log promises on any Redis; a subclass provides the fixture ``client``."""

    @pytest.fixture
    def client(self) -> Any:
        raise NotImplementedError("a concrete suite names its Redis")

    @pytest.fixture
    def log(self, client: Any) -> LogStore:
        return LogStore(client)

    @pytest.fixture
    def signer(self, log: LogStore) -> note.Signer:
        signer = note.Signer.generate("harbormaster.test/log")
        log.publish_key(signer.name, signer.verifier.vkey, [])
        return signer

    def test_batches_from_redis_give_the_roots_and_proofs_of_the_whole_tree(
        self, log: LogStore, signer: note.Signer
    ) -> None:
        token, memory, rng = new_token(), merkle.MemoryTree(), random.Random(4)
        assert log.acquire(token, 5000)
        size = 0
        while size < 300:
            batch = [datum(size + j) for j in range(rng.randint(1, 40))]
            appended = log.append(token, size, batch, signer)
            for data in batch:
                memory.append(data)
            size = appended.size
            checkpoint = open_checkpoint(appended.checkpoint, signer.verifier, signer.name)
            assert (checkpoint.size, checkpoint.root) == (size, memory.root())
            assert log.checkpoint() == appended.checkpoint
        assert log.leaves(0, size) == [datum(i) for i in range(size)]
        for _ in range(60):
            new = rng.randint(1, size)
            old, index = rng.randint(0, new), rng.randint(0, new - 1)
            assert log.root(new) == memory.root(new)
            assert log.inclusion_proof(index, new) == merkle.inclusion_proof(index, new, memory.node)
            assert log.consistency_proof(old, new) == merkle.consistency_proof(old, new, memory.node)
        stored = log.checkpoints()
        assert [s for s, _ in stored] == sorted(s for s, _ in stored) and stored[-1][0] == size
        with pytest.raises(merkle.ProofError, match=f"not {size + 1}"):
            log.inclusion_proof(0, size + 1)

    def test_an_append_on_a_stale_size_a_lost_lease_or_another_key_writes_nothing(
        self, log: LogStore, signer: note.Signer, client: Any
    ) -> None:
        token = new_token()
        assert log.acquire(token, 5000)
        log.append(token, 0, [datum(0), datum(1)], signer)
        with pytest.raises(LogError, match="size"):
            log.append(token, 1, [datum(9)], signer)
        with pytest.raises(LogError, match="lease"):
            log.append(new_token(), 2, [datum(9)], signer)
        other = note.Signer.generate(signer.name)
        with pytest.raises(LogError, match="key"):
            log.append(token, 2, [datum(9)], other)
        with pytest.raises(LogError, match="another key"):
            log.publish_key(other.name, other.verifier.vkey, [])
        assert log.size() == 2 and client.llen(keys.log_level(1)) == 1
        assert not log.acquire(new_token(), 5000)  # held
        log.release(token)
        assert log.acquire(new_token(), 5000)
        rotated = note.Signer.generate(signer.name)
        log.publish_key(rotated.name, rotated.verifier.vkey, [signer.verifier.vkey])  # a rotation is allowed
        published = log.published_key()
        assert published is not None and published.vkey == rotated.verifier.vkey

    def test_the_chains_heads_and_open_set_follow_the_leaves(
        self, log: LogStore, signer: note.Signer
    ) -> None:
        token = new_token()
        assert log.acquire(token, 5000)
        start = leaves.Start(stream="game", id="g1", genesis="aa", seed_commitment="bb")
        heads = [leaves.Head(stream="game", id="g1", seq=s, hash=f"h{s}") for s in (3, 9)]
        log.append(token, 0, [leaves.encode(start), leaves.encode(heads[0])], signer)
        assert log.open_chains() == ["game:g1"]
        final = leaves.Head(stream="game", id="g1", seq=12, hash="h12", finished=True)
        queued = leaves.Rating(account="ann", game_id="g1", mu=25.0, sigma=8.0, place=1)
        log.redis.xadd(keys.LOG_QUEUE, {"leaf": leaves.encode(queued)})
        [(entry_id, _)] = log.queued(10)
        log.append(
            token,
            2,
            [leaves.encode(heads[1]), leaves.encode(final), leaves.encode(queued)],
            signer,
            [entry_id],
        )
        assert log.chain("game", "g1") == [(3, 12), (2, 9), (1, 3), (0, 0)]
        assert log.heads(["game:g1", "game:nope"]) == {"game:g1": ChainHead(12, "h12")}
        assert log.open_chains() == [] and log.queued(10) == []

    def test_the_checkpoint_is_shown_with_one_line_of_each_witness_that_cosigned_exactly_it(
        self, log: LogStore, signer: note.Signer
    ) -> None:
        token = new_token()
        assert log.acquire(token, 5000)
        older = log.append(token, 0, [datum(0)], signer).checkpoint
        latest = log.append(token, 1, [datum(1)], signer).checkpoint
        first, second, unlisted = (
            note.Signer.generate(f"w.test/{n}", note.COSIGNATURE_V1) for n in (1, 2, 3)
        )
        text, old_text = note.split(latest)[0], note.split(older)[0]
        line = first.cosignature_line(text, 7)
        log.store_cosigned(first.name, latest + line + first.cosignature_line(text, 5) + line)
        log.store_cosigned(second.name, older + second.cosignature_line(old_text, 6))  # an older checkpoint
        log.store_cosigned(unlisted.name, latest + unlisted.cosignature_line(text, 8))  # not configured
        shown = log.cosigned_checkpoint([first.verifier, second.verifier])
        assert shown == latest + line
        assert (
            log.has_checkpoint(2, text)
            and log.has_checkpoint(1, old_text)
            and not log.has_checkpoint(2, old_text)
        )
