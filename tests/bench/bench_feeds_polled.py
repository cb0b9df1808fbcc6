"""What a gateway's feeds cost a Redis Cluster (``python -m tests.bench feeds_polled``).

On a Cluster the gateway polls each watched game (``services/gateway/feeds/hub.py``, ``polling.py``): single-key
``XREAD``s, soon after news, up to ``POLL_MOST_S`` apart while the game is quiet. This starts a local
cluster (3 masters, 3 replicas), a gateway on it, N counter games with a spectator socket each and no
moves, and counts the ``XREAD`` calls every master answers over 10 s (``INFO commandstats``); then again
while ``BUSY`` of those games are played over HTTP, one move after another (each ``?wait=true``).
"""

from __future__ import annotations

import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx

from tests.cluster.test_gateway_on_cluster import new_games
from tests.cluster.test_worker_on_cluster import cluster_services
from tests.support.client import Recorder, post_command
from tests.support.harness import ServerThread
from tests.support.redis_cluster import LocalCluster, why_no_cluster
from workers.fold import FoldWorker

WATCHED = (30, 300)
BUSY = 3
MEASURE_S = 10.0


def reads_per_second(cluster: LocalCluster) -> float:
    before, started = cluster.command_calls("xread"), time.monotonic()
    time.sleep(MEASURE_S)
    return (cluster.command_calls("xread") - before) / (time.monotonic() - started)


def play(server: ServerThread, game: dict[str, Any], stop: threading.Event, moves: list[int]) -> None:
    """Move in turn as fast as the answers come, until stopped."""
    seat_tokens = {seat["seat"]: seat["token"] for seat in game["seats"]}
    with httpx.Client(base_url=server.base, timeout=60) as api:
        turn = 0
        while not stop.is_set():
            move = {"command": {"type": "Move"}}
            if post_command(api, game["game_id"], seat_tokens[turn], move).status_code == 200:
                turn, moves[0] = 1 - turn, moves[0] + 1


def measure(
    cluster: LocalCluster, server: ServerThread, api: httpx.Client, count: int
) -> tuple[float, float, int]:
    """``XREAD``s per second on all masters while ``count`` watched games stay quiet, then while ``BUSY`` of
    them are played; and the moves made meanwhile."""
    services = cluster_services(cluster.url)
    services.bus.ensure_groups()
    worker = FoldWorker(services.redis, services.store, services.bus, block_ms=20)
    worker_thread = threading.Thread(target=worker.run, daemon=True)
    worker_thread.start()
    games = new_games(api, services.redis, count, limit=1_000_000, prefix=f"w{count}-")
    spectators = [Recorder(f"{server.ws_base}/ws/games/{g['game_id']}") for g in games]
    time.sleep(3)  # every feed loaded, the pauses grown to their longest
    idle = reads_per_second(cluster)
    stop, moves = threading.Event(), [0]
    players = [threading.Thread(target=play, args=(server, g, stop, moves)) for g in games[:BUSY]]
    for player in players:
        player.start()
    busy = reads_per_second(cluster)
    stop.set()
    for player in players:
        player.join()
    for spectator in spectators:
        spectator.close()
    worker.request_stop()
    worker_thread.join(timeout=30)
    time.sleep(1)
    return idle, busy, moves[0]


def main() -> None:
    if reason := why_no_cluster():
        print(f"skipped: {reason}")
        return
    with LocalCluster(Path(tempfile.mkdtemp(prefix="hm-feeds-"))) as cluster:
        server = ServerThread(cluster_services(cluster.url), cluster.url)
        server.start()
        try:
            with httpx.Client(base_url=server.base, timeout=60) as api:
                for count in WATCHED:
                    idle, busy, moves = measure(cluster, server, api, count)
                    print(
                        f"{count:>4} watched games: quiet {idle:,.0f} XREAD/s on all masters "
                        f"({idle / count:.1f} a game); {BUSY} of them played ({moves / MEASURE_S:.0f} moves/s): "
                        f"{busy:,.0f} XREAD/s"
                    )
        finally:
            server.stop()


if __name__ == "__main__":
    main()
