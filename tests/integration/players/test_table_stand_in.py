"""A table's forfeited seat played by a stand-in bot (issue 45): when both players of a table's game left it,
the clock's first timeout of each seat is its default move (it forfeits the seat), and each later turn of a
forfeited seat is the stand-in's (``HARBORMASTER_TABLE_STAND_IN``, here ``strong-0.2``), an rq job like any
bot turn; the game, played to its end by them, verifies: each timeout as the clock's, every move re-decided.

Real pieces: the gateway and its fold worker in threads (``running_stack``), the rq jobs run by a real rq
worker in this process (``SimpleWorker``), every pass of ``expire_idle`` made at a moment the seats have
been idle long enough (its clock is a parameter: nobody waits 72 hours)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import redis
from rq import SimpleWorker

from domain import GAMES
from events import keys
from services.audit.verify import verify_lines
from services.export import export_lines
from services.players import tables
from services.players.table_clock import PASS_KEY, expire_idle
from services.players.table_settings import STAND_INS, TableSettings
from tests.conftest import TEST_GAMES
from tests.support.client import wait_until
from tests.support.harness import ServerThread, running_stack
from tests.support.pipeline import services_for
from tests.support.players_stack import sign_up
from workers.jobs.bots import bot_names
from workers.jobs.schedule import make_scheduler

IDLE_HOURS = 72
STAND_IN = "strong-0.2"


@pytest.fixture
def stack(redis_url: str, redis_client: redis.Redis) -> Iterator[ServerThread]:
    with running_stack(redis_url) as server:
        yield server


def test_a_forfeited_seat_is_played_by_the_stand_in_and_the_game_verifies(
    stack: ServerThread, redis_url: str, redis_client: redis.Redis
) -> None:
    ann, bob = sign_up(stack.base, "ann"), sign_up(stack.base, "bob")
    table = ann.post("/api/tables", json={"game": "eic", "seats": 2}).json()
    game_id = bob.post(f"/api/tables/{table['table_id']}/join").json()["game_id"]
    services = services_for(redis_url)
    scheduler = make_scheduler(services.redis, redis_url, 0.0, services.bus.partitions, ())
    worker = SimpleWorker([scheduler.queue, scheduler.search_queue], connection=services.redis)

    def stood_in() -> list[int | None]:
        return [
            r.seat for r in services.store.records(game_id) if r.origin == "bot" and r.status == "applied"
        ]

    for _ in range(400):  # a pass, the jobs it enqueued, the moves folded; until the game ends
        if services.store.meta(game_id).status == "finished":
            break
        seq = redis_client.xlen(keys.events(game_id))
        later = tables.now_ms() + IDLE_HOURS * 3_600_000 + 1  # as if the seat to act had left the game
        sent = expire_idle(services, IDLE_HOURS, later, every_ms=1, stand_in=STAND_IN, url=redis_url)
        assert sent, "nothing to claim or stand in for"
        worker.work(burst=True)
        wait_until(lambda seq=seq: redis_client.xlen(keys.events(game_id)) > seq)
        wait_until(lambda: redis_client.get(PASS_KEY) is None)  # the pass's key (1 ms) lapsed
    assert services.store.meta(game_id).status == "finished" and set(stood_in()) == {0, 1}
    records = [r for r in services.store.records(game_id) if r.status == "applied" and r.seat is not None]
    first_by_seat = {seat: next(r for r in records if r.seat == seat) for seat in (0, 1)}
    assert all(r.origin == "clock" for r in first_by_seat.values())  # each forfeited by a timeout first
    assert {r.origin for r in records} == {"clock", "bot"}  # nobody else moved: the people left
    report = verify_lines(list(export_lines(services.store, game_id)), TEST_GAMES)
    assert report.ok and report.decisions_checked and report.timeouts == 2, report.problems
    ann.close()
    bob.close()


def test_the_stand_in_setting_names_a_server_bot() -> None:
    assert TableSettings.from_env({"HARBORMASTER_TABLE_STAND_IN": "Strong"}).stand_in == "strong"
    assert TableSettings.from_env({}).stand_in == ""
    for game in GAMES.values():
        assert set(STAND_INS) == set(bot_names(game))
