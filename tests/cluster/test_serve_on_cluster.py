"""``harbormaster serve`` on the real local cluster, as an operator runs it: ``REDIS_URL`` names the cluster,
``RQ_REDIS_URL`` a standalone Redis for rq. All-bot games of all three kinds, created through the CLI and
through serve's gateway (HTTP), spread over the masters, are played to the end by its fold workers, rq
workers and bots while a spectator watches each over the gateway's WebSocket: each spectator gets every
event once, in order, to the last; every game verifies offline and is archived by its rq job, and
``serve`` stops warmly on SIGTERM."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from redis.cluster import RedisCluster

from domain import GAMES
from events import keys
from services.archive import archive_path
from services.audit.verify import verify_file, verify_lines
from services.bootstrap import Services, build
from services.config import Settings
from services.export import export_lines
from tests.cluster.serving import Serving, serve_on_cluster, stop
from tests.integration.cli.test_cli import hm
from tests.support.client import Recorder, create, event_seqs
from tests.support.redis_cluster import LocalCluster

KINDS = [("manila", 3), ("elcapitan", 2), ("eic", 2)]
"""Two games of each kind (one made by the CLI, one over HTTP), all seats bots (greedy against random): a
few hundred moves each."""


@pytest.fixture
def serving(redis_cluster: LocalCluster, tmp_path: Path) -> Iterator[Serving]:
    """``serve`` on the cluster (2 fold workers, 2 rq workers), once its gateway answers; stopped with
    SIGTERM afterwards if the test has not."""
    with serve_on_cluster(redis_cluster.url, tmp_path) as serving:
        yield serving


def _services(url: str) -> Services:
    settings = Settings(redis_url=url, data_dir=Path(".harbormaster-test").resolve())
    return build(settings, url)


def _bots(seats: int) -> dict[str, str]:
    return {str(seat): "greedy" if seat % 2 == 0 else "random" for seat in range(seats)}


def _new_bot_game(url: str, game: str, seats: int) -> str:
    created = hm("new", game, "--seats", str(seats), "--bots", json.dumps(_bots(seats)), url=url)
    assert created.returncode == 0, created.stderr
    game_id: str = json.loads(created.stdout)["game_id"]
    return game_id


def _unfinished(services: Services, game_ids: list[str]) -> list[str]:
    return [g for g in game_ids if services.redis.hget(keys.meta(g), "status") != b"finished"]


def test_serve_plays_bot_games_of_every_kind_to_the_end_on_the_cluster(
    redis_cluster: LocalCluster, cluster_client: RedisCluster, serving: Serving
) -> None:
    services = _services(redis_cluster.url)
    base = f"http://127.0.0.1:{serving.port}"
    spectators: dict[str, Recorder] = {}
    game_ids = []
    with httpx.Client(base_url=base, timeout=30) as api:
        for game, seats in KINDS:
            by_http = create(api, game, seats, bots=_bots(seats))["game_id"]
            by_cli = _new_bot_game(redis_cluster.url, game, seats)
            for game_id in (by_http, by_cli):
                spectators[game_id] = Recorder(f"ws://127.0.0.1:{serving.port}/ws/games/{game_id}")
                game_ids.append(game_id)
        owners = {cluster_client.get_node_from_key(keys.meta(g)).port for g in game_ids}
        assert len(owners) >= 2, "the games are spread over the masters"

        deadline = time.monotonic() + 420  # a few hundred rq jobs a game, on a loaded 2-core machine
        while unfinished := _unfinished(services, game_ids):
            assert serving.process.poll() is None, "serve exited"
            assert time.monotonic() < deadline, f"not finished: {unfinished}"
            time.sleep(1.0)
        for game_id in game_ids:
            assert api.get(f"/api/games/{game_id}").json()["status"] == "finished", game_id

    for game_id in game_ids:
        last = services.store.meta(game_id).last_seq
        _see_every_event(spectators[game_id], last, game_id)
        report = verify_lines(export_lines(services.store, game_id), GAMES)
        assert report.ok and report.finished and report.decisions_checked, (game_id, report.problems)
    late = time.monotonic() + 120
    while missing := [g for g in game_ids if not archive_path(serving.archive, g).exists()]:
        assert time.monotonic() < late, f"not archived: {missing}"
        time.sleep(0.5)
    for game_id in game_ids:
        assert verify_file(archive_path(serving.archive, game_id), GAMES).ok, game_id
    assert services.bus.backlog() == 0

    assert stop(serving) == 0, "a warm stop"


def _see_every_event(spectator: Recorder, last: int, game_id: str) -> None:
    """The spectator's frames: its hello, then every event after it once, in order, up to the game's last."""
    deadline = time.monotonic() + 120
    while spectator.last_seq() < last:
        assert time.monotonic() < deadline, (
            f"{game_id}: the spectator saw up to {spectator.last_seq()} of {last}"
        )
        time.sleep(0.2)
    spectator.close()
    frames = spectator.frames
    assert frames[0]["type"] == "hello", game_id
    assert event_seqs(frames) == list(range(frames[0]["seq"] + 1, last + 1)), game_id
