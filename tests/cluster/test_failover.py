"""A master of a real local cluster is killed (``kill -9``) while games are played through the event store
with ``HARBORMASTER_REPLICA_ACK=wait``: its replica is promoted and the games of the other masters carry on;
the promoted master's games wait (no replica can confirm their appends) until the dead node is back, as a
replica of the new master, and then carry on too; every append the store acknowledged is on the new master,
none is applied twice, and every game verifies offline. Also: ``waitaof`` on a Redis older than 7.2 is
refused at start, with the reason. What ``wait`` does with and without a replica is in the store's contract
suite (``tests/integration/stores/test_event_store.py``, ``tests/cluster/test_event_store_on_cluster.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from redis.cluster import RedisCluster

from events import keys
from events.replica_ack import ReplicaAck, ReplicaAckUnsupported, redis_version
from services.audit.verify import verify_lines
from services.bootstrap import Services, build
from services.config import Settings
from services.export import export_lines
from tests.cluster.failover_support import Player, promoted, restart, wait_until
from tests.conftest import TEST_GAMES
from tests.support.pipeline import new_race
from tests.support.redis_cluster import LocalCluster

FAILOVER_WAIT = ReplicaAck(mode="wait", replicas=1, timeout_ms=2000)
"""Between the promotion and the dead node's return, every append to a promoted master's game waits this
long for a replica it does not have, and the player rolls the games in turn: with 5 s, one pass over the
games took ~20 s and "5 more rolls elsewhere" missed 120 s on a loaded machine."""


def _services(url: str, ack: ReplicaAck) -> Services:
    settings = Settings(redis_url=url, data_dir=Path(".harbormaster-test").resolve(), replica_ack=ack)
    return build(settings, url, games=TEST_GAMES)


def test_a_killed_master_loses_no_acknowledged_append_and_every_game_verifies(
    own_cluster: LocalCluster,
) -> None:
    services = _services(own_cluster.url, FAILOVER_WAIT)
    client: RedisCluster = services.redis
    game_ids = [f"fo{n}" for n in range(12)]
    for game_id in game_ids:
        new_race(services, game_id)
    victim = client.get_node_from_key(keys.events(game_ids[0])).port
    on_victim = [g for g in game_ids if client.get_node_from_key(keys.events(g)).port == victim]
    player = Player(services.store, game_ids).start()
    try:
        wait_until(lambda: all(len(player.acked[g]) >= 5 for g in game_ids), 120, "5 rolls in every game")
        own_cluster.kill(victim)  # kill -9, appends in flight
        before = {g: len(player.acked[g]) for g in game_ids}
        slot = client.keyslot(keys.events(game_ids[0]))
        wait_until(lambda: promoted(own_cluster, victim, slot), 120, "the victim's replica promoted")
        elsewhere = [g for g in game_ids if g not in on_victim]
        wait_until(
            lambda: all(len(player.acked[g]) >= before[g] + 5 for g in elsewhere),
            240,
            "5 more rolls elsewhere",
        )
        restart(own_cluster, victim)
        wait_until(
            lambda: promoted(own_cluster, victim, slot, replicas=1), 120, "the dead node back as replica"
        )
        wait_until(
            lambda: all(len(player.acked[g]) >= before[g] + 5 for g in game_ids), 120, "5 more rolls each"
        )
    finally:
        player.stop()
    assert client.get_node_from_key(keys.events(game_ids[0])).port != victim
    assert player.failures > 0  # the kill really hit appends
    for game_id in game_ids:
        records = services.store.records(game_id)
        applied = [r.command_id for r in records if r.status == "applied"]
        assert set(player.acked[game_id]) <= set(applied), f"{game_id} lost an acknowledged append"
        twice = [r for r in records if applied.count(r.command_id) > 1]
        assert not twice, f"{game_id} applied a command twice: {twice}"
        report = verify_lines(export_lines(services.store, game_id), TEST_GAMES)
        assert report.ok, (game_id, report.problems)
    assert on_victim and all(len(player.acked[g]) >= before[g] + 5 for g in on_victim)


def test_waitaof_is_refused_at_start_on_a_redis_that_cannot_run_it(
    redis_cluster: LocalCluster, cluster_client: RedisCluster
) -> None:
    ack = ReplicaAck(mode="waitaof", replicas=1, timeout_ms=5000)
    node = redis_cluster.client(redis_cluster.ports[0])
    try:
        version = redis_version(node)
    finally:
        node.close()
    if version >= (7, 2):
        services = _services(redis_cluster.url, ack)  # on 7.2+, with appendonly yes, it works
        new_race(services, "aof")
        assert Player(services.store, ["aof"]).roll("aof")
        return
    with pytest.raises(ReplicaAckUnsupported, match=r"WAITAOF needs Redis 7\.2"):
        _services(redis_cluster.url, ack)
