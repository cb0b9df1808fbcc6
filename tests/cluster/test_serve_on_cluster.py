"""``harbormaster serve`` on the real local cluster, as an operator runs it: ``REDIS_URL`` names the cluster,
``RQ_REDIS_URL`` a standalone Redis for rq. Its fold workers, rq workers and bots play all-bot games of
all three kinds, spread over the masters, to the end; every game verifies offline, every one is archived
by its rq job, and ``serve`` stops warmly on SIGTERM."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from redis.cluster import RedisCluster

from domain import GAMES
from events import keys
from services.archive import archive_path
from services.audit.export import export_lines
from services.audit.verify import verify_file, verify_lines
from services.bootstrap import Services, build
from services.config import Settings
from services.redis_launcher import free_port
from tests.integration.test_cli import hm
from tests.support.redis_cluster import LocalCluster

pytestmark = pytest.mark.redis

BOT_GAMES = [("manila", 3), ("elcapitan", 2), ("eic", 2)] * 2
"""Two of each kind, all seats bots (greedy against random): a few hundred moves each."""


@pytest.fixture
def serving(redis_cluster: LocalCluster, tmp_path: Path) -> Iterator[tuple[subprocess.Popen[bytes], Path]]:
    """``serve`` on the cluster (2 fold workers, 2 rq workers); yields it and its archive folder, and stops it
    with SIGTERM afterwards if the test has not."""
    archive = tmp_path / "archive"
    env = {
        **os.environ,
        "REDIS_URL": redis_cluster.url,
        "HARBORMASTER_DATA": str(tmp_path / "data"),
        "HARBORMASTER_ARCHIVE": str(archive),
        "HARBORMASTER_LOG_LEVEL": "warning",
    }
    log = (tmp_path / "serve.log").open("wb")
    serve = subprocess.Popen(
        [sys.executable, "-m", "services.cli", "serve", "--port", str(free_port()),
         "--workers", "2", "--rq-workers", "2"],
        env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip
    try:
        yield serve, archive
    finally:
        if serve.poll() is None:
            serve.send_signal(signal.SIGTERM)
            try:
                serve.wait(timeout=90)
            except subprocess.TimeoutExpired:
                os.killpg(serve.pid, signal.SIGKILL)
                serve.wait()
        log.close()


def _services(url: str) -> Services:
    settings = Settings(redis_url=url, data_dir=Path(".harbormaster-test").resolve())
    return build(settings, url, on_cluster=True)


def _new_bot_game(url: str, game: str, seats: int) -> str:
    bots = {str(seat): "greedy" if seat % 2 == 0 else "random" for seat in range(seats)}
    created = hm("new", game, "--seats", str(seats), "--bots", json.dumps(bots), url=url)
    assert created.returncode == 0, created.stderr
    game_id: str = json.loads(created.stdout)["game_id"]
    return game_id


def _unfinished(services: Services, game_ids: list[str]) -> list[str]:
    return [g for g in game_ids if services.redis.hget(keys.meta(g), "status") != b"finished"]


def test_serve_plays_bot_games_of_every_kind_to_the_end_on_the_cluster(
    redis_cluster: LocalCluster,
    cluster_client: RedisCluster,
    serving: tuple[subprocess.Popen[bytes], Path],
) -> None:
    serve, archive = serving
    services = _services(redis_cluster.url)
    game_ids = [_new_bot_game(redis_cluster.url, game, seats) for game, seats in BOT_GAMES]
    owners = {cluster_client.get_node_from_key(keys.meta(g)).port for g in game_ids}
    assert len(owners) >= 2, "the games are spread over the masters"

    deadline = time.monotonic() + 420  # a few hundred rq jobs a game, on a loaded 2-core machine
    while unfinished := _unfinished(services, game_ids):
        assert serve.poll() is None, "serve exited"
        assert time.monotonic() < deadline, f"not finished: {unfinished}"
        time.sleep(1.0)

    for game_id in game_ids:
        report = verify_lines(export_lines(services.store, game_id), GAMES)
        assert report.ok and report.finished and report.decisions_checked, (game_id, report.problems)
    late = time.monotonic() + 120
    while missing := [g for g in game_ids if not archive_path(archive, g).exists()]:
        assert time.monotonic() < late, f"not archived: {missing}"
        time.sleep(0.5)
    for game_id in game_ids:
        assert verify_file(archive_path(archive, game_id), GAMES).ok, game_id
    assert services.bus.backlog() == 0

    serve.send_signal(signal.SIGTERM)
    assert serve.wait(timeout=90) == 0, "a warm stop"
