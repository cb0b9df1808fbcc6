"""The CLI verbs that work on a Redis Cluster, end to end on the real local cluster: a game is created,
its keys sit on the master that owns its hash tag, and its log, export (verified offline) and listing read
back; bot seats, which do not run on a Cluster yet, refuse it in one line."""

from __future__ import annotations

import json

import pytest
from redis.cluster import RedisCluster

from events import keys
from tests.integration.test_cli import hm
from tests.support.redis_cluster import LocalCluster

pytestmark = pytest.mark.redis


@pytest.mark.parametrize("scheme", ["redis+cluster", "redis"])
def test_new_log_export_verify_and_games_on_a_cluster(
    redis_cluster: LocalCluster, cluster_client: RedisCluster, scheme: str, tmp_path
) -> None:
    url = redis_cluster.url if scheme == "redis+cluster" else redis_cluster.plain_url
    game_ids = []
    for n in range(6):  # enough games that they land on more than one master
        created = hm("new", "race", "--seats", "2", "--id", f"c{n}", url=url)
        assert created.returncode == 0, created.stderr
        game_ids.append(json.loads(created.stdout)["game_id"])
    owners = {cluster_client.get_node_from_key(keys.meta(g)).port for g in game_ids}
    assert len(owners) > 1
    for game_id in game_ids:
        node = redis_cluster.client(cluster_client.get_node_from_key(keys.meta(game_id)).port or 0)
        try:  # asked directly, the owning master has the game's keys (no redirection involved)
            assert node.exists(keys.meta(game_id), keys.events(game_id)) == 2
        finally:
            node.close()
    log = hm("log", game_ids[0], url=url)
    assert log.returncode == 0, log.stderr
    assert json.loads(log.stdout.splitlines()[0])["seq"] == 1
    export = hm("export", game_ids[0], url=url)
    assert export.returncode == 0, export.stderr
    (tmp_path / "game.jsonl").write_bytes(export.stdout)
    verified = hm("verify", str(tmp_path / "game.jsonl"), url=None)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    listed = hm("games", url=url)
    assert listed.returncode == 0, listed.stderr
    assert {json.loads(line)["game_id"] for line in listed.stdout.splitlines()} == set(game_ids)


def test_bots_refuse_a_cluster_in_one_line(redis_cluster: LocalCluster, cluster_client: RedisCluster) -> None:
    bots = hm("new", "race", "--seats", "2", "--bots", '{"1": "random"}', url=redis_cluster.url)
    assert bots.returncode == 2 and b"rq" in bots.stderr and b"Traceback" not in bots.stderr
    assert cluster_client.dbsize() == 0
