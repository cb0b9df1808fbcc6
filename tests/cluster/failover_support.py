"""Driving games through the event store while a master of the cluster is killed, and checking what is left.

A ``Player`` sends each game's next roll with a command id of its own; an append that fails in any way
(node gone, cluster down, replica not confirming, a stale decision) is tried again, decided afresh, with the
same id, as a client retries: the command-id check answers a repeat with its first result. What the store
acknowledged is recorded, and checked after the failover against what the promoted replica holds.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import redis
from redis.exceptions import RedisClusterException

from events.errors import EventsError
from events.store import EventStore
from tests.integration.stores.store_contract import decided_roll
from tests.support.redis_cluster import LocalCluster

FAILURES = (redis.RedisError, RedisClusterException, EventsError)
"""What an append may raise while a master is down: each is retried with the same command id."""


class Player:
    """Rolls in every game in turn, on a thread of its own, until stopped."""

    def __init__(self, store: EventStore, game_ids: list[str]) -> None:
        self.store = store
        self.game_ids = game_ids
        self.acked: dict[str, list[str]] = {game_id: [] for game_id in game_ids}
        """Per game, the command ids the store acknowledged, in order."""
        self.failures = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> Player:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=120)
        assert not self._thread.is_alive(), "the player did not stop"

    def acked_count(self) -> int:
        return sum(len(ids) for ids in self.acked.values())

    def _run(self) -> None:
        while not self._stop.is_set():
            progressed = False
            for game_id in self.game_ids:
                progressed |= self.roll(game_id)
            if not progressed:
                time.sleep(0.05)  # every game failed: the cluster is between masters; try again shortly

    def roll(self, game_id: str) -> bool:
        """Send the game's next roll (seats take turns: roll ``n`` is seat ``n % 2``'s); whether the store
        acknowledged it as applied."""
        n = len(self.acked[game_id])
        command_id, seat = f"{game_id}-roll{n}", n % 2
        try:
            result = self.store.append(game_id, decided_roll(self.store, game_id, command_id, seat))
        except FAILURES:
            self.failures += 1
            return False
        applied = result.record.status == "applied" if result.record is not None else result.status == "ok"
        assert applied, f"{command_id} was answered {result}"  # a first try was applied, or this one is
        self.acked[game_id].append(command_id)
        return True


def wait_until(check: Any, timeout: float, what: str) -> None:
    """Poll ``check`` until it holds (errors count as not yet); fail with ``what`` after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if check():
                return
        except FAILURES:
            pass
        time.sleep(0.1)
    raise AssertionError(f"{what}: not within {timeout} s")


def restart(cluster: LocalCluster, port: int) -> None:
    """Start the killed node again on its port and files, as Kubernetes restarts a pod: it learns from the
    others that its replica took over, and becomes that one's replica."""
    for node in cluster.nodes:
        if node.port == port:
            node.start(timeout=60)


def promoted(cluster: LocalCluster, dead_port: int, slot: int, replicas: int = 0) -> bool:
    """Whether every live node says the cluster is ok and maps ``slot`` to a master other than the dead one,
    with at least ``replicas`` replicas."""
    owners = set()
    for node in cluster.nodes:
        if node.port == dead_port or node.process is None or node.process.poll() is not None:
            continue
        client = cluster.client(node.port or 0)
        try:
            if b"cluster_state:ok" not in client.execute_command("CLUSTER", "INFO"):
                return False
            for start, end, master, *others in client.execute_command("CLUSTER", "SLOTS"):
                if int(start) <= slot <= int(end):
                    owners.add(int(master[1]) if len(others) >= replicas else -1)
        finally:
            client.close()
    return len(owners) == 1 and dead_port not in owners
