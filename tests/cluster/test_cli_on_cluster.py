"""The CLI verbs that work on a Redis Cluster, end to end on the real local cluster: a game is created,
its keys sit on the master that owns its hash tag, and its log, export (verified offline) and listing read
back; whatever needs rq (bot seats, tournaments, the workers, serve) refuses a Cluster in one line naming
``RQ_REDIS_URL`` when it is not set, and an ``RQ_REDIS_URL`` that is itself a Cluster."""

from __future__ import annotations

import json

import pytest
from redis.cluster import RedisCluster

from events import keys
from tests.integration.cli.test_cli import hm
from tests.support.redis_cluster import LocalCluster


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


@pytest.mark.parametrize(
    "argv",
    [
        ["new", "race", "--seats", "2", "--bots", '{"1": "random"}'],
        ["worker"],
        ["rq-worker"],
        ["serve", "--port", "1"],
        ["tournament", "create", "--game", "race", "--players", "2", "--bots", "random"],
    ],
    ids=["new-bots", "worker", "rq-worker", "serve", "tournament"],
)
def test_without_rq_redis_url_whatever_uses_rq_refuses_a_cluster_in_one_line(
    redis_cluster: LocalCluster,
    cluster_client: RedisCluster,
    monkeypatch: pytest.MonkeyPatch,
    argv: list[str],
) -> None:
    monkeypatch.delenv("RQ_REDIS_URL")
    refused = hm(*argv, url=redis_cluster.url)
    assert refused.returncode == 2, refused.stderr
    assert refused.stderr.count(b"\n") == 1 and b"RQ_REDIS_URL" in refused.stderr, refused.stderr
    assert cluster_client.dbsize() == 0, "refused before anything was written"


def test_rq_redis_url_naming_a_cluster_is_refused(
    redis_cluster: LocalCluster, cluster_client: RedisCluster, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RQ_REDIS_URL", redis_cluster.plain_url)
    refused = hm("rq-worker", url=redis_cluster.url)
    assert refused.returncode == 2 and b"RQ_REDIS_URL names a Redis Cluster" in refused.stderr, refused.stderr
    assert cluster_client.dbsize() == 0
