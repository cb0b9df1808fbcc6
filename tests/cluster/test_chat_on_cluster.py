"""Chat on a Redis Cluster reaches the sockets of every gateway: a message posted on one gateway is pushed
by the other's relay (pub/sub is broadcast to every node of a Cluster) to the spectators it holds."""

from __future__ import annotations

import httpx
from redis.cluster import RedisCluster

from tests.cluster.test_gateway_on_cluster import cluster_services
from tests.support.client import Recorder, bearer, create, wait_until
from tests.support.harness import ServerThread
from tests.support.redis_cluster import LocalCluster


def test_a_message_posted_on_one_gateway_reaches_the_sockets_of_another_on_a_cluster(
    redis_cluster: LocalCluster, cluster_client: RedisCluster
) -> None:
    first = ServerThread(cluster_services(redis_cluster.url), redis_cluster.url)
    second = ServerThread(cluster_services(redis_cluster.url), redis_cluster.url)
    first.start()
    second.start()
    try:
        with httpx.Client(base_url=first.base, timeout=30) as api:
            game = create(api, "race", 2)
        game_id, token = game["game_id"], game["seats"][0]["token"]
        there = Recorder(f"{second.ws_base}/ws/games/{game_id}")
        here = Recorder(f"{first.ws_base}/ws/games/{game_id}")
        wait_until(lambda: there.frames and here.frames)  # both sockets have their hello
        said = httpx.post(
            f"{first.base}/api/games/{game_id}/chat", json={"text": "across"}, headers=bearer(token)
        )
        assert said.status_code == 201, said.text
        for recorder in (there, here):
            wait_until(lambda r=recorder: [f["text"] for f in r.frames if f["type"] == "chat"] == ["across"])
            recorder.close()
    finally:
        first.stop()
        second.stop()
