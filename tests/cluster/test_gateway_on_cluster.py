"""The gateway on the real local cluster: moves over HTTP and over the WebSocket, and spectators' frames, for
games spread over every master; then a watched game's slot migrated under the gateway (``ASK`` while half
migrated, ``MOVED`` after), moves still answered and every frame still delivered once, in order."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from redis.cluster import RedisCluster
from redis.crc import key_slot
from websockets.sync.client import ClientConnection, connect

from events import keys
from services.bootstrap import Services
from tests.cluster.test_worker_on_cluster import assert_every_game_verifies, cluster_services
from tests.support.client import Recorder, bearer, create, event_seqs, post_command
from tests.support.harness import ServerThread, free_port
from tests.support.pipeline import TEST_PLUGINS, eventually, stop_process, worker_process
from tests.support.redis_cluster import LocalCluster
from workers.fold import FoldWorker

LIMIT = 8
"""Moves of each counter game (seats alternate; a move applied out of order would be refused)."""
WAIT_S = 120.0
"""Generous: several engineers' tests share two CPUs with six Redis nodes."""
MOVE = {"command": {"type": "Move"}}


class Stack:
    """A fold worker (thread) and a gateway (uvicorn thread) on the cluster, and an HTTP client of it."""

    def __init__(self, cluster: LocalCluster) -> None:
        self.services: Services = cluster_services(cluster.url)
        self.worker = FoldWorker(self.services.redis, self.services.store, self.services.bus, block_ms=20)
        self.worker_thread = threading.Thread(target=self.worker.run, daemon=True)
        self.server = ServerThread(cluster_services(cluster.url), cluster.url)
        self.api = httpx.Client(base_url=self.server.base, timeout=WAIT_S)

    def __enter__(self) -> Stack:
        self.worker_thread.start()
        self.server.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.api.close()
        self.server.stop()
        self.worker.request_stop()
        self.worker_thread.join(timeout=30)


@pytest.fixture
def stack(redis_cluster: LocalCluster, cluster_client: RedisCluster) -> Iterator[Stack]:
    with Stack(redis_cluster) as running:
        yield running


def new_games(
    api: httpx.Client, cluster: RedisCluster, count: int, limit: int = LIMIT, prefix: str = "gw"
) -> list[dict[str, Any]]:
    """``count`` counter games created over HTTP, as many on each master as the count allows (ids chosen by
    the slot of their hash tag, so no run leaves a master out)."""
    masters = [node.port for node in cluster.get_primaries()]
    ids: dict[int, list[str]] = {port: [] for port in masters}
    candidate = 0
    while sum(len(chosen) for chosen in ids.values()) < count:
        game_id = f"{prefix}{candidate}"
        candidate += 1
        chosen = ids[cluster.get_node_from_key(keys.meta(game_id)).port]
        if len(chosen) < -(-count // len(masters)):
            chosen.append(game_id)
    spread = [
        game_id for n in range(count) for port in masters if n < len(ids[port]) for game_id in [ids[port][n]]
    ]
    return [
        create(api, "counter", 2, options={"limit": limit}, game_id=game_id) for game_id in spread[:count]
    ]


def tokens(game: dict[str, Any]) -> dict[int, str]:
    return {seat["seat"]: seat["token"] for seat in game["seats"]}


def watch(stack: Stack, game_id: str) -> Recorder:
    return Recorder(f"{stack.server.ws_base}/ws/games/{game_id}")


def wait_for_frames(recorder: Recorder, last_seq: int) -> None:
    eventually(lambda: recorder.last_seq() >= last_seq, timeout=WAIT_S, message=f"frames up to {last_seq}")


def play_over_http(stack: Stack, game: dict[str, Any], moves: int) -> None:
    """``moves`` moves, seats alternating, each answered ``applied`` with its event's number."""
    game_id, seat_tokens = game["game_id"], tokens(game)
    for _ in range(moves):
        state = stack.api.get(f"/api/games/{game_id}").json()
        response = post_command(stack.api, game_id, seat_tokens[state["to_act"][0]], MOVE)
        assert response.status_code == 200, response.text
        assert response.json()["status"] == "applied", response.text
        assert response.json()["seq"] == state["seq"] + 1


def test_http_moves_and_spectator_frames_of_games_on_every_master(
    stack: Stack, cluster_client: RedisCluster
) -> None:
    games = new_games(stack.api, cluster_client, 9)
    spectators = [watch(stack, g["game_id"]) for g in games]
    threads = [threading.Thread(target=play_over_http, args=(stack, g, LIMIT)) for g in games]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=WAIT_S * 2)
    for game, spectator in zip(games, spectators, strict=True):
        wait_for_frames(spectator, LIMIT + 1)
        assert event_seqs(spectator.frames) == list(range(2, LIMIT + 2)), game["game_id"]
        assert spectator.frames[-1]["view"]["count"] == LIMIT
        state = stack.api.get(f"/api/games/{game['game_id']}").json()
        assert state["status"] == "finished" and state["view"]["count"] == LIMIT
        spectator.close()
    listed = stack.api.get("/api/games", params={"status": "finished"}).json()["games"]
    assert {g["game_id"] for g in listed} == {g["game_id"] for g in games}
    assert stack.api.get("/healthz").status_code == 200
    # Bot seats need rq, and rq a standalone Redis (RQ_REDIS_URL), which these services were not given.
    refused = stack.api.post("/api/games", json={"game": "counter", "seats": 2, "bots": {"1": "random"}})
    assert refused.status_code == 422 and "RQ_REDIS_URL" in refused.json()["message"], refused.text
    assert_every_game_verifies(stack.services, [g["game_id"] for g in games])


def _seat_socket(stack: Stack, game_id: str, token: str) -> ClientConnection:
    socket = connect(f"{stack.server.ws_base}/ws/games/{game_id}?token={token}", open_timeout=30).__enter__()
    assert json.loads(socket.recv(timeout=WAIT_S))["type"] == "hello"
    return socket


def _result(socket: ClientConnection) -> dict[str, Any]:
    while True:
        frame: dict[str, Any] = json.loads(socket.recv(timeout=WAIT_S))
        if frame["type"] == "result":
            return frame


def play_over_websocket(stack: Stack, game: dict[str, Any], errors: list[str]) -> None:
    """Both seats on their own sockets, moving in turn; every result ``applied`` with the next number."""
    sockets = {seat: _seat_socket(stack, game["game_id"], token) for seat, token in tokens(game).items()}
    try:
        for move in range(LIMIT):
            socket = sockets[move % 2]
            socket.send(
                json.dumps({"type": "command", "command": {"type": "Move"}, "command_id": f"m{move}"})
            )
            result = _result(socket)
            if result != {
                "type": "result", "command_id": f"m{move}", "status": "applied", "seq": move + 2,
                "first_seq": move + 2,
            }:  # fmt: skip
                errors.append(f"{game['game_id']}: {result}")
                return
    finally:
        for socket in sockets.values():
            socket.close()


def test_websocket_moves_of_games_on_every_master(stack: Stack, cluster_client: RedisCluster) -> None:
    games = new_games(stack.api, cluster_client, 9)
    spectators = [watch(stack, g["game_id"]) for g in games]
    errors: list[str] = []
    threads = [threading.Thread(target=play_over_websocket, args=(stack, g, errors)) for g in games]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=WAIT_S * 2)
    assert errors == []
    for spectator in spectators:
        wait_for_frames(spectator, LIMIT + 1)
        assert event_seqs(spectator.frames) == list(range(2, LIMIT + 2))
        spectator.close()
    assert_every_game_verifies(stack.services, [g["game_id"] for g in games])


def test_a_watched_games_slot_migrated_under_the_gateway(
    stack: Stack, redis_cluster: LocalCluster, cluster_client: RedisCluster
) -> None:
    """Half migrated, the game's keys already on the importing master: the gateway's reads and submissions
    are answered ``ASK`` and follow it; after the move, ``MOVED``: the gateway reads the map again. (While
    half migrated the fold worker's append, a script over several of the game's keys, is refused
    ``TRYAGAIN``, as Redis refuses any such call then: the move submitted meanwhile lands after it.)"""
    game = new_games(stack.api, cluster_client, 3)[0]
    game_id, seat_tokens = game["game_id"], tokens(game)
    spectator = watch(stack, game_id)
    play_over_http(stack, game, 2)
    wait_for_frames(spectator, 3)
    gateway = stack.server.app.state.gateway
    slot = key_slot(keys.meta(game_id).encode())
    source = cluster_client.get_node_from_key(keys.meta(game_id)).port
    target = next(p for p in redis_cluster.master_ports() if p != source)
    redis_cluster.begin_move(slot, source, target)
    try:
        response = post_command(stack.api, game_id, seat_tokens[0], MOVE, wait=False)
        assert response.status_code == 202, response.text
        assert gateway.link.sent_again.get("ASK", 0) > 0  # the submission's check of the game's results
        eventually(lambda: gateway.hub.nodes.sent_again.get("ASK", 0) > 0, timeout=WAIT_S, message="ASK")
    finally:
        redis_cluster.finish_move(slot, target)
    wait_for_frames(spectator, 4)
    play_over_http(stack, game, LIMIT - 3)
    wait_for_frames(spectator, LIMIT + 1)
    assert event_seqs(spectator.frames) == list(range(2, LIMIT + 2))
    spectator.close()
    moved = gateway.hub.nodes.sent_again.get("MOVED", 0) + gateway.link.sent_again.get("MOVED", 0)
    assert moved > 0  # the first call after the move (the two wires share the slot map)
    assert_every_game_verifies(stack.services, [game_id])


def test_harbormaster_gateway_on_a_plain_url_of_a_cluster_node(
    redis_cluster: LocalCluster, cluster_client: RedisCluster
) -> None:
    """The ``harbormaster gateway`` and ``worker`` commands, given a node's plain ``redis://`` URL (a Cluster
    recognised by ``INFO cluster``): healthy, and a game created and played over HTTP."""
    port = free_port()
    # The partitions as ``worker_process`` sets them: a gateway with more would submit where no one reads.
    env = {**os.environ, "REDIS_URL": redis_cluster.plain_url, "HARBORMASTER_GAME_PLUGINS": TEST_PLUGINS,
           "HARBORMASTER_LOG_LEVEL": "warning", "HARBORMASTER_PARTITIONS": "8"}  # fmt: skip
    command = [sys.executable, "-m", "services.cli", "gateway", "--port", str(port)]
    gateway = subprocess.Popen(command, env=env)
    worker = worker_process(redis_cluster.plain_url)
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=WAIT_S) as api:
            eventually(lambda: _healthy(api), timeout=WAIT_S, message="the gateway answers /healthz")
            game = create(api, "counter", 2, options={"limit": 2})
            game_id = game["game_id"]
            for seat, token in sorted(tokens(game).items()):
                # Not ``?wait=true``: the worker process may still be starting on a loaded machine.
                sent = post_command(api, game_id, token, MOVE, wait=False).json()
                result = f"/api/games/{game_id}/commands/{sent['command_id']}"
                eventually(
                    lambda: api.get(result, headers=bearer(token)).json()["status"] != "pending",  # noqa: B023
                    timeout=WAIT_S,
                    message="the move's result",
                )
                assert api.get(result, headers=bearer(token)).json()["seq"] == seat + 2
            eventually(
                lambda: api.get(f"/api/games/{game_id}").json()["status"] == "finished",
                timeout=WAIT_S,
                message="the gateway's feed of the game at its end",
            )
    finally:
        stop_process(gateway)
        stop_process(worker)


def _healthy(api: httpx.Client) -> bool:
    try:
        return api.get("/healthz").status_code == 200
    except httpx.TransportError:
        return False
