"""Fold worker processes on the real local cluster: 200 concurrent games, spread over every master, folded
by two workers, and a worker killed with SIGKILL mid-run and replaced; every command applied once, in
order, and every game's export verifies."""

from __future__ import annotations

import os
import signal
from pathlib import Path

from redis.cluster import RedisCluster

from events import keys
from services.audit.verify import verify_lines
from services.bootstrap import Services, build
from services.config import Settings
from services.export import export_lines
from tests.conftest import TEST_GAMES
from tests.integration.workers.test_concurrent_games import _assert_applied_once_in_order_and_replayable
from tests.support.pipeline import (
    COUNTER_PLUGIN,
    RACE_PLUGIN,
    eventually,
    new_race,
    stop_process,
    wait_for_results,
    worker_process,
)
from tests.support.redis_cluster import LocalCluster

GAMES = 200
ROUNDS = 10
KILL_ROUNDS = 30
"""Enough for the victim, killed once it has folded 150 commands, never to have folded them all by then."""
SEATS = 2
PARTITIONS = 8
ROLL = b'{"type":"Roll"}'


def cluster_services(url: str) -> Services:
    """The services on the cluster, as a test reaches them (no refusal: this is what runs on one)."""
    settings = Settings(
        redis_url=url,
        data_dir=Path(".harbormaster-test").resolve(),
        partitions=PARTITIONS,
        game_plugins=(RACE_PLUGIN, COUNTER_PLUGIN),
    )
    return build(settings, url, games=TEST_GAMES)


def start_games(services: Services, cluster: RedisCluster, count: int = GAMES) -> list[str]:
    """``count`` race games, which the cluster spreads over all its masters (checked)."""
    game_ids = [f"g{g}" for g in range(count)]
    for game_id in game_ids:
        new_race(services, game_id, seats=SEATS)
    owners = {cluster.get_node_from_key(keys.meta(g)).port for g in game_ids}
    assert len(owners) == len(cluster.get_primaries())
    return game_ids


def submit_round(services: Services, game_ids: list[str], round_no: int) -> list[tuple[str, str, int]]:
    """One command per game; seats alternate, so a command applied out of order would be rejected."""
    messages = [services.bus.message(g, round_no % SEATS, ROLL, f"{g}-r{round_no}") for g in game_ids]
    services.bus.submit_many(messages)
    return [(m.game_id, m.command_id, m.seat or 0) for m in messages]


def assert_every_game_verifies(services: Services, game_ids: list[str]) -> None:
    for game_id in game_ids:
        report = verify_lines(export_lines(services.store, game_id), TEST_GAMES)
        assert report.ok, (game_id, report.problems)


def applied(services: Services, game_ids: list[str]) -> int:
    """Commands recorded so far in every game."""
    pipe = services.redis.pipeline(transaction=False)
    for game_id in game_ids:
        pipe.hlen(keys.results(game_id))
    return sum(int(n) - 2 for n in pipe.execute())  # minus the set-up record and the position


def test_200_concurrent_games_with_two_workers_on_the_cluster(
    redis_cluster: LocalCluster, cluster_client: RedisCluster
) -> None:
    services = cluster_services(redis_cluster.url)
    game_ids = start_games(services, cluster_client)
    workers = [worker_process(redis_cluster.url, PARTITIONS), worker_process(redis_cluster.url, PARTITIONS)]
    try:
        wanted = []
        for round_no in range(ROUNDS):
            wanted += submit_round(services, game_ids, round_no)
        wait_for_results(services, wanted, timeout=120)
    finally:
        codes = [stop_process(w, timeout=60) for w in workers]
    assert codes == [0, 0], "a warm stop exits cleanly"
    _assert_applied_once_in_order_and_replayable(services)
    assert_every_game_verifies(services, game_ids)
    assert services.bus.backlog() == 0


def test_kill_9_of_a_worker_on_the_cluster_loses_nothing_and_applies_nothing_twice(
    redis_cluster: LocalCluster, cluster_client: RedisCluster
) -> None:
    services = cluster_services(redis_cluster.url)
    game_ids = start_games(services, cluster_client)
    wanted = []
    for round_no in range(KILL_ROUNDS):
        wanted += submit_round(services, game_ids, round_no)
    victim = worker_process(redis_cluster.url, PARTITIONS, extra_args=["--batch", "8"])
    survivor = None
    try:
        eventually(lambda: applied(services, game_ids) >= 150, timeout=120, message="the victim folding")
        os.kill(victim.pid, signal.SIGKILL)
        victim.wait()
        assert applied(services, game_ids) < GAMES * KILL_ROUNDS, (
            "the kill must land in the middle of the stream"
        )
        survivor = worker_process(redis_cluster.url, PARTITIONS)
        wait_for_results(services, wanted, timeout=120)
    finally:
        if survivor is not None:
            stop_process(survivor, timeout=60)
        if victim.poll() is None:
            victim.kill()
    _assert_applied_once_in_order_and_replayable(services, KILL_ROUNDS)
    assert_every_game_verifies(services, game_ids)
    assert services.bus.backlog() == 0
