"""The command bus on the real local cluster: commands of games on every master are submitted, read back
per node by one consumer over all partitions, each once, and acknowledged; after a partition's slot is
migrated to another master, the next read is redirected (MOVED), refreshes the slot map and still gets
every entry, once."""

from __future__ import annotations

from redis.cluster import RedisCluster

from events import codec, keys
from events.bus import CommandBus
from tests.support.redis_cluster import LocalCluster

PARTITIONS = 16


def _drain(bus: CommandBus, consumer: str) -> list[bytes]:
    """Everything new for ``consumer`` on all partitions, acknowledged as it is read."""
    got: list[bytes] = []
    while entries := bus.read(consumer, range(PARTITIONS), count=50, block_ms=None):
        for entry in entries:
            got.append(entry.raw)
            bus.redis.xack(keys.inbox(entry.partition), keys.GROUP, entry.entry_id)
    return got


def _submit(bus: CommandBus, games: list[str], tag: str) -> set[str]:
    messages = [bus.message(game, 0, b'{"kind":"roll"}', f"{tag}-{game}") for game in games]
    bus.submit_many(messages)
    return {m.command_id for m in messages}


def _command_ids(raws: list[bytes]) -> list[str]:
    return [codec.decode_inbox(raw).command_id for raw in raws]


def test_commands_on_every_master_are_read_per_node_once_and_survive_a_slot_move(
    redis_cluster: LocalCluster, cluster_client: RedisCluster
) -> None:
    bus = CommandBus(cluster_client, partitions=PARTITIONS)
    bus.ensure_groups()
    games = [f"bus{n}" for n in range(40)]
    owners = {cluster_client.get_node_from_key(keys.inbox(p)).port for p in range(PARTITIONS)}
    assert len(owners) == 3  # the partitions really are spread over the masters

    reader = CommandBus(RedisCluster(host="127.0.0.1", port=redis_cluster.ports[0]), partitions=PARTITIONS)
    sent = _submit(bus, games, "a")
    read = _command_ids(_drain(reader, "w1"))
    assert sorted(read) == sorted(sent)
    assert bus.backlog() == 0

    # Move a partition's slot (with its stream and group) to another master behind the bus's back.
    moved = keys.partition_for(games[0], PARTITIONS)
    slot = cluster_client.keyslot(keys.inbox(moved))
    source = cluster_client.get_node_from_key(keys.inbox(moved)).port
    target = next(port for port in redis_cluster.master_ports() if port != source)
    redis_cluster.move_slot(slot, source, target)

    # The reader's client still maps the slot to its old master: its read there is answered MOVED, it
    # refreshes its map and reads again.
    assert reader.redis.get_node_from_key(keys.inbox(moved)).port == source
    sent_after = _submit(bus, games, "b")
    read_after = _command_ids(_drain(reader, "w1"))
    assert sorted(read_after) == sorted(sent_after)
    assert reader.redis.get_node_from_key(keys.inbox(moved)).port == target
    assert bus.backlog() == 0
    reader.redis.close()


def test_a_read_of_a_half_migrated_slot_follows_ask_to_the_importing_node(
    redis_cluster: LocalCluster, cluster_client: RedisCluster
) -> None:
    bus = CommandBus(cluster_client, partitions=PARTITIONS)
    bus.ensure_groups()
    games = [f"ask{n}" for n in range(20)]
    moving = keys.partition_for(games[0], PARTITIONS)
    slot = cluster_client.keyslot(keys.inbox(moving))
    source = cluster_client.get_node_from_key(keys.inbox(moving)).port
    target = next(port for port in redis_cluster.master_ports() if port != source)
    sent = _submit(bus, games, "c")
    redis_cluster.begin_move(slot, source, target)  # the partition's stream is on target; the map says source
    try:
        read = _command_ids(_drain(bus, "w2"))
        assert sorted(read) == sorted(sent)
        assert cluster_client.get_node_from_key(keys.inbox(moving)).port == source  # no map reload for ASK
    finally:
        redis_cluster.finish_move(slot, target)
    assert bus.backlog() == 0
