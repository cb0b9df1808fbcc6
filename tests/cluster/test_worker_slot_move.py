"""A slot holding live games is migrated to another master, step by step, while a running fold worker
folds their commands: the slot MIGRATING/IMPORTING with the keys still on the source, one game's keys on
the target (its appends answered ``ASK``), another's split between the two (``TRYAGAIN``), every key moved,
then the slot given to the target on every master (the worker's map is stale: ``MOVED``). Nothing is lost,
nothing applied twice, every game's commands are recorded in the order sent and every export verifies."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import msgspec
import redis
from redis.cluster import RedisCluster
from redis.crc import key_slot

from events import codec, keys
from events.envelope import InboxMessage
from services.bootstrap import Services
from tests.cluster.test_worker_on_cluster import PARTITIONS, assert_every_game_verifies, cluster_services
from tests.support.pipeline import (
    SETUP_ID,
    TEST_PLUGINS,
    eventually,
    new_race,
    stop_process,
    wait_for_results,
)
from tests.support.redis_cluster import LocalCluster
from workers.metrics import METRICS_KEY

ROLL = b'{"type":"Roll"}'
OTHERS = 30
MOVERS = 3
"""Games whose keys share one slot, the one migrated."""


def _ids_in_one_slot(count: int) -> list[str]:
    """``count`` game ids whose hash tags fall in one slot (found by trying ids in turn), a slot that holds
    no inbox, lease or index key: the worker's map must learn of the move from its appends alone."""
    shared = [keys.inbox(p) for p in range(PARTITIONS)] + [keys.lease(p) for p in range(PARTITIONS)]
    shared += [keys.WORKERS, keys.GAMES_INDEX, keys.LIVE_GAMES, keys.DEAD_LETTERS, METRICS_KEY]
    busy = {key_slot(k.encode()) for k in shared}
    by_slot: dict[int, list[str]] = {}
    n = 0
    while True:
        game_id = f"m{n}"
        n += 1
        slot = key_slot(f"g:{game_id}".encode())
        if slot in busy:
            continue
        found = by_slot.setdefault(slot, [])
        found.append(game_id)
        if len(found) == count:
            return found


class Plan:
    """The games, and the commands each was sent so far, in order (the expected record)."""

    def __init__(self, services: Services, movers: list[str], others: list[str]) -> None:
        self.services = services
        self.movers = movers
        self.games = movers + others
        self.sent: dict[str, list[str]] = {g: [] for g in self.games}
        self.rounds = 0

    def out_of_turn(self) -> list[tuple[str, str, int]]:
        """Seat 1 rolls first: rejected, and the game's command log (an append key) now exists."""
        messages = [self.services.bus.message(g, 1, ROLL, f"{g}-early") for g in self.games]
        return self._submit(messages)

    def round(self) -> list[tuple[str, str, int]]:
        seat = self.rounds % 2
        messages = [self.services.bus.message(g, seat, ROLL, f"{g}-r{self.rounds}") for g in self.games]
        self.rounds += 1
        return self._submit(messages)

    def _submit(self, messages: list[InboxMessage]) -> list[tuple[str, str, int]]:
        self.services.bus.submit_many(messages)
        for m in messages:
            self.sent[m.game_id].append(m.command_id)
        return [(m.game_id, m.command_id, m.seat or 0) for m in messages]


def _migrate_keys(cluster: LocalCluster, source: int, target: int, names: list[bytes]) -> None:
    node = cluster.client(source)
    try:
        node.execute_command("MIGRATE", "127.0.0.1", target, "", 0, 5000, "KEYS", *names)
    finally:
        node.close()


def _keys_in_slot(cluster: LocalCluster, port: int, slot: int) -> list[bytes]:
    node = cluster.client(port)
    try:
        return list(node.execute_command("CLUSTER", "GETKEYSINSLOT", slot, 1000))
    finally:
        node.close()


def _keys_of(cluster: LocalCluster, port: int, slot: int, game_id: str) -> list[bytes]:
    """The game's keys still on the node, in a fixed order."""
    tag = b"{g:" + game_id.encode() + b"}"
    return sorted(k for k in _keys_in_slot(cluster, port, slot) if tag in k)


def _worker(url: str, log_path: Path) -> subprocess.Popen[bytes]:
    """A worker whose log (at info: its re-sent appends) goes to a file."""
    env = {
        **os.environ,
        "REDIS_URL": url,
        "HARBORMASTER_PARTITIONS": str(PARTITIONS),
        "HARBORMASTER_GAME_PLUGINS": TEST_PLUGINS,
        "HARBORMASTER_LOG_LEVEL": "info",
        "HARBORMASTER_LOG_FORMAT": "json",
    }
    with log_path.open("wb") as log:
        return subprocess.Popen([sys.executable, "-m", "services.cli", "worker"], env=env, stderr=log)


def _assert_recorded_in_order_once(plan: Plan) -> None:
    store = plan.services.store
    for game_id in plan.games:
        records = store.records(game_id)
        assert [r.command_id for r in records] == [SETUP_ID, *plan.sent[game_id]], game_id
        assert [r.status for r in records[1:]] == ["rejected"] + ["applied"] * plan.rounds, game_id
        envelopes = store.read(game_id)
        assert [e.seq for e in envelopes] == list(range(1, plan.rounds + 2)), game_id
        loaded = store.load(game_id)
        replayed = loaded.game.fold([codec.decode_event(loaded.game, e) for e in envelopes])
        assert msgspec.msgpack.encode(replayed) == msgspec.msgpack.encode(loaded.state), game_id


def test_a_slot_of_live_games_migrates_while_the_worker_folds_their_commands(
    redis_cluster: LocalCluster, cluster_client: RedisCluster, tmp_path: Path
) -> None:
    services = cluster_services(redis_cluster.url)
    movers = _ids_in_one_slot(MOVERS)
    plan = Plan(services, movers, [f"o{n}" for n in range(OTHERS)])
    for game_id in plan.games:
        new_race(services, game_id, seats=2)
    slot = cluster_client.keyslot(keys.meta(movers[0]))
    source = cluster_client.get_node_from_key(keys.meta(movers[0])).port
    target = next(port for port in redis_cluster.master_ports() if port != source)
    log_path = tmp_path / "worker.log"
    worker = _worker(redis_cluster.url, log_path)
    try:
        wait_for_results(services, plan.out_of_turn() + plan.round(), timeout=120)

        # The slot is MIGRATING/IMPORTING; every key still on the source, which runs the appends.
        _set_migrating(redis_cluster, slot, source, target)
        wait_for_results(services, plan.round(), timeout=120)

        # One game's keys on the target: the source answers ASK for it.
        _migrate_keys(redis_cluster, source, target, _keys_of(redis_cluster, source, slot, movers[0]))
        wait_for_results(services, plan.round(), timeout=120)

        # Another game's keys split between the nodes: its appends are answered TRYAGAIN until the rest go.
        second = _keys_of(redis_cluster, source, slot, movers[1])
        _migrate_keys(redis_cluster, source, target, second[:2])
        wanted = plan.round()
        eventually(lambda: _refused(log_path, "TRYAGAIN"), timeout=120, message="an append refused")
        while rest := _keys_in_slot(redis_cluster, source, slot):
            _migrate_keys(redis_cluster, source, target, rest)
        wait_for_results(services, wanted, timeout=120)

        # The slot given to the target: the worker's map still names the source, which answers MOVED.
        redis_cluster.finish_move(slot, target)
        wait_for_results(services, plan.round() + plan.round(), timeout=120)
    finally:
        code = stop_process(worker, timeout=60)
    assert code == 0
    for refusal in ("ASK", "TRYAGAIN", "MOVED"):
        assert _refused(log_path, refusal), refusal
    _assert_recorded_in_order_once(plan)
    assert_every_game_verifies(services, plan.games)
    assert services.bus.backlog() == 0
    on_target = redis.Redis(host="127.0.0.1", port=target)
    try:
        assert all(on_target.exists(keys.meta(g), keys.events(g)) == 2 for g in movers)
    finally:
        on_target.close()


def _refused(log_path: Path, refusal: str) -> bool:
    """Whether the worker logged an append sent again after this refusal."""
    log = log_path.read_text()
    return f'"refusal": "{refusal}"' in log or f'"refusal":"{refusal}"' in log


def _set_migrating(cluster: LocalCluster, slot: int, source: int, target: int) -> None:
    """The first step of a migration, no key moved yet: IMPORTING on the target, MIGRATING on the source."""
    src, dst = cluster.client(source), cluster.client(target)
    try:
        dst.execute_command("CLUSTER", "SETSLOT", slot, "IMPORTING", cluster.node_id(source))
        src.execute_command("CLUSTER", "SETSLOT", slot, "MIGRATING", cluster.node_id(target))
    finally:
        src.close()
        dst.close()
