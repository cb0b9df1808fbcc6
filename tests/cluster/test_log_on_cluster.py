"""The log on a real Redis Cluster: its contract (``tests/integration/stores/log_store_contract.py``), the suite it passes
on one Redis, with every key in the slot ``{log}``; and the sequencer reading games spread over every master
(one cross-slot pipeline) and logging them, proofs read from the cluster equal to those of the tree rebuilt
from its leaves."""

from __future__ import annotations

import secrets
from typing import Any, cast

import pytest
from redis.cluster import RedisCluster

from events.log_store import LogStore
from events.store import EventStore
from events.tlog import leaves, merkle, note
from events.tlog.checkpoint import open_checkpoint
from tests.conftest import TEST_GAMES
from tests.integration.stores.log_store_contract import LogStoreContract
from workers.log_sequencer import LogSequencer


class TestLogStoreOnCluster(LogStoreContract):
    @pytest.fixture
    def client(self, cluster_client: RedisCluster) -> RedisCluster:
        return cluster_client  # every master flushed


def test_the_sequencer_logs_games_of_every_master_and_proofs_hold(cluster_client: RedisCluster) -> None:
    store = EventStore(cast(Any, cluster_client), TEST_GAMES)  # the store takes either client
    game_ids = [f"cl-{n}" for n in range(12)]
    for game_id in game_ids:
        store.create("race", game_id, 2, {"goal": 50}, secrets.token_bytes(32))
    masters = {cluster_client.get_node_from_key(f"hm:{{g:{g}}}:meta").name for g in game_ids}
    assert len(masters) > 1  # the games are spread over the masters
    signer = note.Signer.generate("harbormaster.test/cluster")
    sequencer = LogSequencer(cluster_client, signer)
    sequencer.publish()
    assert sequencer.tick() == 2 * len(game_ids)  # each game's start and head
    log = LogStore(cluster_client)
    signed = log.checkpoint()
    assert signed is not None
    checkpoint = open_checkpoint(signed, signer.verifier, signer.name)
    tree = merkle.MemoryTree()
    for data in log.leaves(0, checkpoint.size):
        tree.append(data)
    assert tree.root() == checkpoint.root
    for index in range(checkpoint.size):
        assert log.inclusion_proof(index, checkpoint.size) == merkle.inclusion_proof(
            index, checkpoint.size, tree.node
        )
    assert log.consistency_proof(3, checkpoint.size) == merkle.consistency_proof(
        3, checkpoint.size, tree.node
    )
    starts = [
        leaf for leaf in map(leaves.decode, log.leaves(0, checkpoint.size)) if isinstance(leaf, leaves.Start)
    ]
    assert sorted(s.id for s in starts) == sorted(game_ids)
