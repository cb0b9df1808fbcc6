"""Bot turns follow from the log: idempotent jobs per (game, seq, seat), retries, and the reconciler.

Each test loses a bot job the way a fault does (the queue and the job's hash gone with a Redis restart, a
worker that died holding a job) and checks that the game still moves on, played by a real rq worker (in
this process, ``SimpleWorker``) and a real fold worker.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from rq import Queue, SimpleWorker
from rq.job import Job
from rq.utils import utcformat

from events.keys import LIVE_GAMES
from services.games import create_game
from tests.support.pipeline import RACE_PLUGIN, services_for
from workers.fold import FoldWorker
from workers.jobs.bots import BOT_QUEUE
from workers.jobs.schedule import BotScheduler, acting_bot_seats, bot_job_id, make_scheduler, reconcile


def _setup(redis_url: str, bots: dict[int, str]):
    services = services_for(redis_url)
    scheduler = make_scheduler(services.redis, redis_url, 0.0, services.bus.partitions, (RACE_PLUGIN,))
    game_id, _ = create_game(services, "race", 2, {"goal": 12}, bots=bots, redis_url=redis_url)
    return services, scheduler, game_id


def _play(services, scheduler: BotScheduler, rounds: int = 1) -> None:
    """Run the queued bot jobs, then fold what they sent (each fold triggers the next turn)."""
    for _ in range(rounds):
        SimpleWorker([scheduler.queue], connection=services.redis).work(burst=True)
        FoldWorker(services.redis, services.store, services.bus, block_ms=20, on_applied=scheduler).run(
            until_idle=True
        )


def _lose_every_job(services) -> None:
    """What a Redis restart that lost the last second, or a flushed queue, does to rq's side."""
    for key in services.redis.scan_iter(match="rq:*"):
        services.redis.delete(key)


def test_the_job_id_is_the_position_and_a_second_enqueue_while_queued_is_a_no_op(
    redis_url, redis_client
) -> None:
    services, scheduler, game_id = _setup(redis_url, bots={0: "random"})
    loaded = services.store.load(game_id)
    queue = Queue(BOT_QUEUE, connection=services.redis)
    assert queue.job_ids == [bot_job_id(game_id, loaded.seq, 0)]  # create_game enqueued the first turn
    assert scheduler.ensure(game_id, loaded) is None
    assert reconcile(services.store, scheduler) == []
    assert queue.job_ids == [bot_job_id(game_id, loaded.seq, 0)]
    assert Job.fetch(queue.job_ids[0], connection=services.redis).retries_left == 3


def test_a_lost_job_is_enqueued_again_by_the_reconciler_and_the_game_ends(redis_url, redis_client) -> None:
    services, scheduler, game_id = _setup(redis_url, bots={0: "random", 1: "greedy"})
    for _ in range(3):
        _lose_every_job(services)  # the turn's job is gone; nothing in the log changed
        loaded = services.store.load(game_id)
        expected = bot_job_id(game_id, loaded.seq, acting_bot_seats(loaded)[0])
        assert reconcile(services.store, scheduler) == [expected]
        _play(services, scheduler)
    for _ in range(200):
        if services.store.meta(game_id).status == "finished":
            break
        if not scheduler.queue.job_ids:
            reconcile(services.store, scheduler)
        _play(services, scheduler)
    assert services.store.meta(game_id).status == "finished"
    records = services.store.records(game_id)
    assert all(r.status == "applied" for r in records)
    seqs = [r.at_seq for r in records[1:]]
    assert len(seqs) == len(set(seqs)), "a bot moved twice at one position"


def test_a_job_started_long_ago_by_a_worker_that_died_counts_as_lost(redis_url, redis_client) -> None:
    services, scheduler, _ = _setup(redis_url, bots={0: "random"})
    job_id = scheduler.queue.job_ids[0]
    scheduler.queue.empty()  # an rq worker took it ...
    long_ago = utcformat(datetime.now(UTC) - timedelta(minutes=5))
    services.redis.hset(Job.key_for(job_id), mapping={"status": "started", "started_at": long_ago})
    assert not scheduler.job_in_flight(job_id)  # ... and died with it
    assert reconcile(services.store, scheduler) == [job_id]
    services.redis.hset(
        Job.key_for(job_id), mapping={"status": "started", "started_at": utcformat(datetime.now(UTC))}
    )
    assert scheduler.job_in_flight(job_id)  # one that started a moment ago is believed


def test_a_duplicate_append_triggers_the_bot_whose_job_was_lost(redis_url, redis_client) -> None:
    services, scheduler, game_id = _setup(redis_url, bots={1: "random"})  # a human at seat 0
    services.bus.submit(game_id, 0, b'{"type":"Roll"}', "human-1")
    _play(services, scheduler)
    at = services.store.load(game_id).seq
    assert scheduler.queue.job_ids == [bot_job_id(game_id, at, 1)]
    _lose_every_job(services)
    services.bus.submit(game_id, 0, b'{"type":"Roll"}', "human-1")  # the client's retry: a duplicate
    FoldWorker(services.redis, services.store, services.bus, block_ms=20, on_applied=scheduler).run(
        until_idle=True
    )
    assert services.store.load(game_id).seq == at
    assert scheduler.queue.job_ids == [bot_job_id(game_id, at, 1)]
    _play(services, scheduler)
    assert services.store.load(game_id).seq > at  # the bot moved


def test_the_reconciler_loads_only_games_that_stood_still_since_its_last_pass(
    redis_url, redis_client
) -> None:
    services, scheduler, game_id = _setup(redis_url, bots={0: "random", 1: "greedy"})
    seen: dict[str, int] = {}
    assert reconcile(services.store, scheduler, seen) == []  # its first job is queued
    _play(services, scheduler)  # the game moves on ...
    _lose_every_job(services)  # ... and its next job is lost
    assert reconcile(services.store, scheduler, seen) == []  # it moved since the last pass: progressing
    loaded = services.store.load(game_id)
    expected = bot_job_id(game_id, loaded.seq, acting_bot_seats(loaded)[0])
    assert reconcile(services.store, scheduler, seen) == [expected]  # it stood still: its turn is due
    assert seen == {game_id: loaded.seq}


def test_a_job_waiting_in_a_long_queue_is_in_flight_however_old(redis_url, redis_client) -> None:
    services, scheduler, _ = _setup(redis_url, bots={0: "random"})
    job_id = scheduler.queue.job_ids[0]
    long_ago = utcformat(datetime.now(UTC) - timedelta(minutes=5))
    services.redis.hset(Job.key_for(job_id), mapping={"enqueued_at": long_ago})
    assert scheduler.job_in_flight(job_id)
    scheduler.queue.remove(job_id)  # taken from the queue by a worker that died before starting it
    assert not scheduler.job_in_flight(job_id)


def test_a_finished_game_left_in_the_live_index_is_taken_out_of_it(redis_url, redis_client) -> None:
    services, scheduler, game_id = _setup(redis_url, bots={0: "random", 1: "greedy"})
    for _ in range(300):
        if services.store.meta(game_id).status == "finished":
            break
        _play(services, scheduler)
    assert services.store.meta(game_id).status == "finished"
    services.redis.zadd(LIVE_GAMES, {game_id: 1})  # as a fold worker killed before its index update leaves it
    assert reconcile(services.store, scheduler) == []
    assert services.store.list_games(live_only=True) == []


@pytest.mark.parametrize("tournament", [False, True])
def test_a_tournament_games_bot_jobs_wait_for_no_demo_delay(
    redis_url, redis_client, tournament: bool
) -> None:
    """``serve --demo`` slows bots down to be watched (the bot runner and the rq jobs alike); a tournament's
    games are played at full speed whatever the setting."""
    services = services_for(redis_url)
    scheduler = make_scheduler(services.redis, redis_url, 2.5, services.bus.partitions, (RACE_PLUGIN,))
    game_id, _ = create_game(
        services, "race", 2, {"goal": 12}, bots={0: "random"}, tournament=tournament, redis_url=redis_url
    )
    redis_client.delete(*redis_client.keys("rq:*"))  # the job create_game enqueued, without a delay
    loaded = services.store.load(game_id)
    job_id = scheduler.ensure(game_id, loaded)
    assert job_id is not None
    delay_s = Job.fetch(job_id, connection=services.redis).args[2]
    assert delay_s == (0.0 if tournament else 2.5)
