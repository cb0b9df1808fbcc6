"""A master killed under the gateway: its replica is promoted, the gateway finds it (its slot map read again
after the lost connection), moves over HTTP carry on in every game, and each spectator's frames stay whole,
one per event, in order. The fold worker runs with ``HARBORMASTER_REPLICA_ACK=wait`` (as
``test_failover_worker.py``), so no move a client saw applied is lost with the master."""

from __future__ import annotations

import threading
import time
from typing import Any

import httpx
from redis.cluster import RedisCluster

from events import keys
from tests.cluster.failover_support import promoted, restart, wait_until
from tests.cluster.test_gateway_on_cluster import new_games, tokens
from tests.cluster.test_worker_on_cluster import assert_every_game_verifies, cluster_services
from tests.support.client import Recorder, bearer, event_seqs
from tests.support.harness import ServerThread
from tests.support.pipeline import stop_process, worker_process
from tests.support.redis_cluster import LocalCluster

ACK_ENV = {"HARBORMASTER_REPLICA_ACK": "wait", "HARBORMASTER_REPLICA_ACK_TIMEOUT_MS": "1000"}
WAIT_S = 180.0
"""Generous: a failover, a node restarted and several engineers' tests on two CPUs."""


class Mover:
    """Moves in one game over HTTP on a thread of its own, as a patient client: each move's id is the event
    number it should make, so a move sent again (after a 503 or a wait that timed out) is the same move."""

    def __init__(self, base: str, game: dict[str, Any]) -> None:
        self.base = base
        self.game_id = game["game_id"]
        self.tokens = tokens(game)
        self.applied: list[int] = []
        """The event numbers of the moves this client saw applied."""
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> Mover:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=120)
        assert not self._thread.is_alive(), "the mover did not stop"

    def _run(self) -> None:
        with httpx.Client(base_url=self.base, timeout=30) as api:
            while not self._stop.is_set():
                try:
                    # A move every 50 ms at most (the machine is shared); after a failure, again shortly.
                    time.sleep(0.05 if self._move(api) else 0.1)
                except httpx.TransportError:
                    time.sleep(0.1)

    def _move(self, api: httpx.Client) -> bool:
        state = api.get(f"/api/games/{self.game_id}")
        if state.status_code != 200:
            return False
        seq, seat = state.json()["seq"], state.json()["to_act"][0]
        body = {"command": {"type": "Move"}, "command_id": f"m{seq + 1}"}
        response = api.post(
            f"/api/games/{self.game_id}/commands",
            params={"wait": "true"},
            json=body,
            headers=bearer(self.tokens[seat]),
        )
        if response.status_code != 200:
            return False
        assert response.json()["status"] == "applied", response.text
        self.applied.append(response.json()["seq"])
        return True


def test_a_master_killed_under_the_gateway(own_cluster: LocalCluster) -> None:
    services = cluster_services(own_cluster.url)
    services.bus.ensure_groups()
    client: RedisCluster = services.redis
    worker = worker_process(own_cluster.url, 8, extra_env=ACK_ENV)
    server = ServerThread(cluster_services(own_cluster.url), own_cluster.url)
    server.start()
    movers: list[Mover] = []
    try:
        with httpx.Client(base_url=server.base, timeout=WAIT_S) as api:
            games = new_games(api, client, 3, limit=1_000_000)  # one on each master
            spectators = [Recorder(f"{server.ws_base}/ws/games/{g['game_id']}") for g in games]
            victim = client.get_node_from_key(keys.meta(games[0]["game_id"])).port
            slot = client.keyslot(keys.meta(games[0]["game_id"]))
            movers = [Mover(server.base, g).start() for g in games]
            wait_until(lambda: all(len(m.applied) >= 3 for m in movers), WAIT_S, "3 moves in every game")
            own_cluster.kill(victim)
            before = [len(m.applied) for m in movers]
            wait_until(lambda: promoted(own_cluster, victim, slot), WAIT_S, "the victim's replica promoted")
            restart(own_cluster, victim)  # the worker's WAIT needs a replica again
            wait_until(
                lambda: all(len(m.applied) >= n + 3 for m, n in zip(movers, before, strict=True)),
                WAIT_S,
                "3 more moves in every game, the victim's too",
            )
            for mover in movers:
                mover.stop()
            assert server.app.state.gateway.link.slots.version > 1  # the map read again after the kill
            for game, spectator in zip(games, spectators, strict=True):
                last = api.get(f"/api/games/{game['game_id']}").json()["seq"]
                wait_until(lambda: spectator.last_seq() >= last, WAIT_S, "the spectator's frames")  # noqa: B023
                assert event_seqs(spectator.frames) == list(range(2, last + 1)), game["game_id"]
                spectator.close()
    finally:
        for mover in movers:
            mover.stop()
        server.stop()
        stop_process(worker, timeout=60)
    for mover in movers:
        applied = [r.last_seq for r in services.store.records(mover.game_id) if r.status == "applied"]
        assert set(mover.applied) <= set(applied), f"{mover.game_id} lost a move a client saw applied"
    assert_every_game_verifies(services, [m.game_id for m in movers])
