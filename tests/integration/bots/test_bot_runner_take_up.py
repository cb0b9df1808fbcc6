"""A bot runner takes up new games a beat's budget at a time (issue 42): a 10,000-player round opens 2,500
games at once, and loading them all in one beat held the runner past its leases, so runners took each
other's shards in turn and no move was sent. At a budget of nothing, each beat loads exactly one new game
and keeps its leases; the next beats take up the others, and with a budget to spare one beat takes them all."""

from __future__ import annotations

import os

from events.keys import lease
from tests.support.pipeline import services_for
from workers.botrunner import NAMESPACE, SHARDS, BotRunner


def test_each_beat_loads_new_games_within_its_budget_and_keeps_its_leases(redis_url, redis_client) -> None:
    services = services_for(redis_url)
    game_ids = [f"up{n}" for n in range(5)]
    for game_id in game_ids:
        services.store.create("manila", game_id, 3, {}, os.urandom(32), bots={0: "greedy", 2: "random"})
    runner = BotRunner(services.store, services.bus)
    runner.take_up_s = 0.0  # every game past the first waits for a later beat
    try:
        for beat in range(1, len(game_ids) + 1):
            runner._beat()
            assert len(runner.games) == beat
            holders = {services.redis.get(lease(p) + NAMESPACE) for p in range(SHARDS)}
            assert holders == {runner.owner.encode()}  # one runner: it holds every shard, beat after beat
        assert sorted(runner.games) == sorted(game_ids)
        runner.leases.release_all()
        other = BotRunner(services.store, services.bus, owner="bots-other")
        other.take_up_s = float("inf")
        other._beat()  # a budget to spare: all five in one beat
        assert sorted(other.games) == sorted(game_ids)
        other.leases.release_all()
    finally:
        runner.leases.release_all()
