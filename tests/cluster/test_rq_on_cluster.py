"""rq beside a Redis Cluster: the game data on the real local cluster, the rq queues on a standalone Redis
(``RQ_REDIS_URL``). A fold worker and an rq worker, both real processes, play bot games spread over every
master to the end, close a bot tournament's rounds by their round jobs, and archive every finished game by
its archive job; every rq key is on the standalone Redis and none on the cluster, and everything verifies."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from redis.cluster import RedisCluster
from rq.job import Job

from events import keys
from events.chain import first_broken_link
from events.tournament_store import TournamentStore
from services import tournament_service as service
from services.archive import archive_path
from services.audit.verify import verify_file
from services.bootstrap import Services, build
from services.config import Settings
from services.games import create_game
from tests.cluster.test_worker_on_cluster import PARTITIONS, assert_every_game_verifies
from tests.conftest import TEST_GAMES
from tests.support.pipeline import COUNTER_PLUGIN, RACE_PLUGIN, TEST_PLUGINS, eventually, stop_process
from tests.support.redis_cluster import LocalCluster
from workers.jobs.tournament import round_job_id

BOT_GAMES = 9
GOAL = 12
"""A short race: a bot game ends in a few dozen moves."""


def split_services(url: str, rq_url: str) -> Services:
    settings = Settings(
        redis_url=url,
        rq_redis_url=rq_url,
        data_dir=Path(".harbormaster-test").resolve(),
        partitions=PARTITIONS,
        game_plugins=(RACE_PLUGIN, COUNTER_PLUGIN),
    )
    return build(settings, url, games=TEST_GAMES)


def _process(verb: list[str], url: str, archive: Path) -> subprocess.Popen[bytes]:
    """``harbormaster <verb>`` on the cluster; ``RQ_REDIS_URL`` comes from the test's environment."""
    env = {
        **os.environ,
        "REDIS_URL": url,
        "HARBORMASTER_PARTITIONS": str(PARTITIONS),
        "HARBORMASTER_GAME_PLUGINS": TEST_PLUGINS,
        "HARBORMASTER_LOG_LEVEL": "warning",
        "HARBORMASTER_ARCHIVE": str(archive),
    }
    return subprocess.Popen([sys.executable, "-m", "services.cli", *verb], env=env)


@pytest.fixture
def split_processes(redis_cluster: LocalCluster, tmp_path: Path) -> Iterator[Path]:
    """A fold worker and a (forking) rq worker on the split; yields the archive folder."""
    archive = tmp_path / "archive"
    processes = [
        _process(["worker"], redis_cluster.url, archive),
        _process(["rq-worker"], redis_cluster.url, archive),
    ]
    try:
        yield archive
    finally:
        for process in processes:
            if process.poll() is None:
                stop_process(process, timeout=60)


def _status(services: Services, game_id: str) -> bytes | None:
    status: bytes | None = services.redis.hget(keys.meta(game_id), "status")
    return status


def _keys_on_masters(cluster: RedisCluster, pattern: str) -> list[bytes]:
    found: list[bytes] = []
    for node in cluster.get_primaries():
        found += list(cluster.get_redis_connection(node).scan_iter(match=pattern, count=1000))
    return found


def test_bots_rounds_and_archives_run_through_rq_on_its_own_redis_beside_the_cluster(
    redis_cluster: LocalCluster, cluster_client: RedisCluster, rq_redis_url: str, split_processes: Path
) -> None:
    services = split_services(redis_cluster.url, rq_redis_url)
    services.bus.ensure_groups()
    game_ids = [f"b{n}" for n in range(BOT_GAMES)]
    for game_id in game_ids:
        create_game(services, "race", 2, {"goal": GOAL}, game_id=game_id, bots={0: "random", 1: "random"},
                    redis_url=redis_cluster.url)  # fmt: skip
    assert len({cluster_client.get_node_from_key(keys.meta(g)).port for g in game_ids}) == 3
    spec = service.TournamentSpec(game="race", rounds=2, table_size=2, players=4, bots=["random"],
                                  options={"goal": GOAL}, points={2: [6, 1], 1: [6]}, id="tsplit")  # fmt: skip
    tid = service.create(services, spec)
    service.start(services, redis_cluster.url, tid)

    # Only the round jobs close rounds here (no reconcile call): the tournament finishing proves they ran.
    eventually(lambda: service.load(services, tid).status == "finished", timeout=240,
               message="the tournament finished by its round jobs")  # fmt: skip
    state = service.load(services, tid)
    tournament_games = [g for played in state.rounds for g in played.games]
    everything = game_ids + tournament_games
    eventually(lambda: all(_status(services, g) == b"finished" for g in everything), timeout=240,
               message="every bot game finished")  # fmt: skip
    eventually(lambda: all(archive_path(split_processes, g).exists() for g in everything), timeout=240,
               message="every finished game archived")  # fmt: skip

    rq_client = redis.Redis.from_url(rq_redis_url)
    try:
        for number in (1, 2):  # each round closed by its job, on the rq Redis
            assert Job.fetch(round_job_id(tid, number), connection=rq_client).get_status() == "finished"
        assert rq_client.keys("rq:*"), "rq's keys are on RQ_REDIS_URL's Redis"
    finally:
        rq_client.close()
    assert _keys_on_masters(cluster_client, "rq:*") == [], "no rq key on the cluster"
    assert_every_game_verifies(services, everything)
    for game_id in everything:
        report = verify_file(archive_path(split_processes, game_id), TEST_GAMES)
        assert report.ok and report.finished, (game_id, report.problems)
    tournaments = TournamentStore(services.redis)
    assert first_broken_link(tournaments.header(tid), tournaments.envelopes(tid)) is None
    assert state.winners
