"""Issue 44: a player resigns a table's game. The seat passes to the stand-in bot for the rest (none of the
three games ends for one player's leaving), the others play on to the end, the rating places the resigned
seat last (a loss), and the game verifies.

Real pieces: the gateway, its fold worker with the rating hook and the clock hook wired as
``workers/runner.py`` wires them (the clock hook enqueues the stand-in's turns), a real rq worker in this
process for those jobs."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import redis
from rq import SimpleWorker

from services.audit.verify import verify_lines
from services.export import export_lines
from tests.conftest import TEST_GAMES
from tests.integration.players.test_rated_tables import ratings_of
from tests.support.client import wait_until
from tests.support.harness import ServerThread, running_stack
from tests.support.pipeline import services_for
from tests.support.players_stack import sign_up
from workers.jobs.account_ratings import RatingTrigger
from workers.jobs.clock_due import ClockTrigger
from workers.jobs.schedule import make_scheduler
from workers.jobs.table_clocks import resigned_key


class Hooks:
    """The fold worker's rating and clock hooks, the clock's with the bot scheduler's stand-in turns."""

    def __init__(self, url: str) -> None:
        services = services_for(url)
        self.ratings = RatingTrigger(services.redis)
        scheduler = make_scheduler(
            services.redis, url, 0.0, services.bus.partitions, services.settings.game_plugins
        )
        self.clocks = ClockTrigger(
            services.store, services.bus, lambda g, loaded, left: scheduler.ensure(g, loaded, stand_ins=left)
        )

    def __call__(self, game_id: str, loaded: Any) -> None:
        self.ratings(game_id, loaded)
        self.clocks(game_id, loaded)


@pytest.fixture
def stack(redis_url: str, redis_client: redis.Redis) -> Iterator[ServerThread]:
    with running_stack(redis_url, on_applied=lambda _: Hooks(redis_url)) as server:
        yield server


def resign(client: httpx.Client, game_id: str) -> httpx.Response:
    return client.post(f"/api/games/{game_id}/resign")


def test_a_resigned_seat_is_played_by_a_bot_to_the_end_and_rated_a_loss(
    stack: ServerThread, redis_url: str, redis_client: redis.Redis
) -> None:
    ann, bob, eve = sign_up(stack.base, "ann"), sign_up(stack.base, "bob"), sign_up(stack.base, "eve")
    table = ann.post("/api/tables", json={"game": "race", "seats": 2, "options": {"goal": 8}}).json()
    game_id = bob.post(f"/api/tables/{table['table_id']}/join").json()["game_id"]
    assert resign(eve, game_id).status_code == 401  # not seated there
    assert resign(httpx.Client(base_url=stack.base), "nosuchgame").status_code == 404
    first = resign(bob, game_id)
    assert first.status_code == 200 and first.json() == {
        "game_id": game_id,
        "seat": 1,
        "resigned": True,
        "first": True,
    }
    assert resign(bob, game_id).json()["first"] is False
    services = services_for(redis_url)
    resigned = [e for e in services.store.read(game_id) if e.type == "SeatResigned"]
    assert [(e.seat, e.command_id.startswith("resign-")) for e in resigned] == [(1, True)]  # once, in the log
    assert not redis_client.exists(resigned_key(game_id))  # no record beside the log any more
    scheduler = make_scheduler(services.redis, redis_url, 0.0, services.bus.partitions, ())
    worker = SimpleWorker([scheduler.queue, scheduler.search_queue], connection=services.redis)
    for _ in range(200):
        state = ann.get(f"/api/games/{game_id}").json()
        if state["status"] == "finished":
            break
        if state["to_act"] == [0]:
            sent = ann.post(f"/api/games/{game_id}/commands?wait=true", json={"command": {"type": "Roll"}})
            assert sent.status_code == 200, sent.text
        else:  # bob's seat: the clock hook enqueued the stand-in's turn when ann's move was applied
            wait_until(lambda: scheduler.queue.count > 0)
            worker.work(burst=True)
            wait_until(lambda: ann.get(f"/api/games/{game_id}").json()["to_act"] != [1])
    assert ann.get(f"/api/games/{game_id}").json()["status"] == "finished"
    records = [r for r in services.store.records(game_id) if r.status == "applied" and r.seat == 1]
    assert [r.command for r in records if r.origin == "seat"] == [b'{"type":"Resign"}']
    assert {r.origin for r in records[1:]} == {"bot"}  # every one of bob's turns was the bot's
    rows = {r["account"]: r for r in ratings_of(stack.base, game_id)["changes"]}
    assert (rows["bob"]["place"], rows["bob"]["abandoned"]) == (1, True)
    assert rows["bob"]["change"] < 0 < rows["ann"]["change"]
    over = resign(ann, game_id)
    assert (over.status_code, over.json()["error"]) == (409, "game_over")
    report = verify_lines(list(export_lines(services.store, game_id)), TEST_GAMES)
    assert report.ok and report.decisions_checked, report.problems
    for client in (ann, bob, eve):
        client.close()
