"""Issue 44: a clock chosen when a table opens. Presets and custom values are checked when the table opens;
the table's game is timed by that clock from its own events (the fold worker's hook arms its deadline, the
claim is the clock's as in a tournament); a seat out of time is dropped (default moves at once) or handed
to a stand-in bot until its player moves again, as the table was opened with.

Real pieces: the gateway, its fold worker (rating hook on) and bot player in threads (``rated_stack``), a
real rq worker in this process for the stand-in's jobs. Every claim is made at a moment the seat's time has
run out (the clock's ``now`` is a parameter: nobody waits ten minutes or a day)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import redis
from rq import SimpleWorker

from events import keys
from events.store import now_ms
from services.audit.verify import verify_lines
from services.export import export_lines
from services.players.table_clock import FORFEITED, PASS_KEY, expire_idle
from tests.conftest import TEST_GAMES
from tests.integration.players.test_rated_tables import ratings_of
from tests.support.client import wait_until
from tests.support.harness import ServerThread
from tests.support.pipeline import services_for
from tests.support.players_stack import rated_stack, sign_up
from workers.jobs.clock import DUE, claim_timeouts
from workers.jobs.clock_due import ClockTrigger, GameClocks
from workers.jobs.schedule import make_scheduler
from workers.jobs.table_clocks import clock_key

MINUTE, DAY = 60_000, 86_400_000


@pytest.fixture
def stack(redis_url: str, redis_client: redis.Redis) -> Iterator[ServerThread]:
    with rated_stack(redis_url) as server:
        yield server


def open_race(ann: httpx.Client, bob: httpx.Client, clock: dict[str, Any], goal: int = 8) -> str:
    table = ann.post(
        "/api/tables", json={"game": "race", "seats": 2, "options": {"goal": goal}, "clock": clock}
    )
    assert table.status_code == 201, table.text
    game_id: str = bob.post(f"/api/tables/{table.json()['table_id']}/join").json()["game_id"]
    return game_id


def state_of(client: httpx.Client, game_id: str) -> dict[str, Any]:
    body: dict[str, Any] = client.get(f"/api/games/{game_id}").json()
    return body


def roll(client: httpx.Client, game_id: str) -> None:
    sent = client.post(f"/api/games/{game_id}/commands?wait=true", json={"command": {"type": "Roll"}})
    assert sent.status_code == 200, sent.text


def test_clock_choices_are_checked_when_the_table_opens(stack: ServerThread) -> None:
    ann = sign_up(stack.base, "ann")
    bad = [
        {"preset": "bullet"}, {"preset": "rapid", "minutes": 3}, {"kind": "realtime", "minutes": 0},
        {"kind": "realtime", "minutes": 241}, {"kind": "realtime", "minutes": 5, "increment_s": 601},
        {"kind": "turn", "hours": 0}, {"kind": "turn", "hours": 14 * 24 + 1}, {"kind": "turn", "minutes": 5},
        {"kind": "sundial"}, {"preset": "day", "on_timeout": "kick"},
    ]  # fmt: skip
    for clock in bad:
        refused = ann.post("/api/tables", json={"game": "race", "seats": 2, "clock": clock})
        assert (refused.status_code, refused.json()["error"]) == (422, "bad_clock"), (clock, refused.text)
    odd = ann.post("/api/tables", json={"game": "race", "seats": 2, "clock": {"preset": "day", "extra": 1}})
    assert odd.status_code == 422
    shown = {
        "rapid": ({"preset": "rapid"}, "10 min + 10 s/move", "bot"),
        "day": ({"preset": "day", "on_timeout": "drop"}, "1 day/move", "drop"),
        "custom": ({"kind": "turn", "hours": 48}, "2 days/move", "bot"),
        "realtime": ({"kind": "realtime", "minutes": 3, "increment_s": 2}, "3 min + 2 s/move", "bot"),
        "vote": ({"preset": "blitz", "on_timeout": "vote"}, "5 min + 5 s/move", "vote"),
    }
    for clock, label, on_timeout in shown.values():
        table = ann.post("/api/tables", json={"game": "race", "seats": 2, "clock": clock})
        assert table.status_code == 201, table.text
        assert (table.json()["clock"], table.json()["on_timeout"]) == (label, on_timeout)
        listed = {t["table_id"]: t for t in ann.get("/api/tables").json()["tables"]}
        assert listed[table.json()["table_id"]]["clock"] == label
        ann.post(f"/api/tables/{table.json()['table_id']}/leave")  # within the open-tables quota
    plain = ann.post("/api/tables", json={"game": "race", "seats": 2}).json()
    assert plain["clock"] == "no clock"
    ann.close()


def test_a_realtime_seat_out_of_time_is_dropped_and_the_game_verifies(
    stack: ServerThread, redis_url: str, redis_client: redis.Redis
) -> None:
    ann, bob = sign_up(stack.base, "ann"), sign_up(stack.base, "bob")
    game_id = open_race(ann, bob, {"preset": "rapid", "on_timeout": "drop"})
    services = services_for(redis_url)
    clock = GameClocks(services.redis)(game_id)
    assert clock is not None and (clock.total_ms, clock.increment_ms, clock.forfeit) == (
        10 * MINUTE,
        10_000,
        True,
    )
    shown = ann.get(f"/api/games/{game_id}/clock").json()
    assert (shown["total_limit_ms"], shown["increment_ms"], shown["on_timeout"]) == (
        10 * MINUTE,
        10_000,
        "drop",
    )
    assert shown["running"] and shown["to_act"] == [0]
    hook = ClockTrigger(services.store, services.bus)  # the fold worker's hook, as after each move
    hook(game_id, services.store.load(game_id))
    armed = redis_client.zscore(DUE, game_id)
    created = services.store.meta(game_id).header.created_ms
    assert armed is not None and created <= armed <= now_ms() + 10 * MINUTE  # ann's ten minutes
    assert not claim_timeouts(services.store, services.bus, [game_id], now_ms=now_ms(), clock=clock)
    later = now_ms() + 10 * MINUTE + 1  # as if ann had left the game ten minutes ago
    first = claim_timeouts(services.store, services.bus, [game_id], now_ms=later, clock=clock)
    assert [seat for _, seat, _ in first] == [0]
    wait_until(lambda: state_of(bob, game_id)["to_act"] != [0])
    while (state := state_of(bob, game_id))["status"] != "finished":
        if state["to_act"] == [1]:
            roll(bob, game_id)
        else:  # ann's turns: dropped, so played at once
            assert claim_timeouts(services.store, services.bus, [game_id], now_ms=now_ms(), clock=clock)
            wait_until(
                lambda: (
                    state_of(bob, game_id)["to_act"] != [0] or state_of(bob, game_id)["status"] == "finished"
                )
            )
    seats = {s["seat"]: s for s in ann.get(f"/api/games/{game_id}/clock").json()["seats"]}
    bob_moves = sum(1 for r in services.store.records(game_id) if r.seat == 1 and r.status == "applied")
    assert seats[1]["bank_ms"] == 10 * MINUTE + 10_000 * bob_moves  # the increment of each of bob's moves
    assert seats[0]["timeouts"] >= 1 and seats[1]["timeouts"] == 0
    rows = {r["account"]: r for r in ratings_of(stack.base, game_id)["changes"]}
    assert (rows["ann"]["place"], rows["ann"]["abandoned"]) == (1, True)
    report = verify_lines(list(export_lines(services.store, game_id)), TEST_GAMES)
    assert report.ok and report.timeouts == seats[0]["timeouts"], report.problems
    ann.close()
    bob.close()


def test_a_turn_based_seat_out_of_time_goes_to_a_bot_until_its_player_takes_it_back(
    stack: ServerThread, redis_url: str, redis_client: redis.Redis
) -> None:
    ann, bob = sign_up(stack.base, "ann"), sign_up(stack.base, "bob")
    game_id = open_race(ann, bob, {"preset": "day"}, goal=40)  # no 3 rolls of a die each can end it
    services = services_for(redis_url)
    clock = GameClocks(services.redis)(game_id)
    assert clock is not None and (clock.move_ms, clock.stood_in) == (DAY, True)
    scheduler = make_scheduler(
        services.redis, redis_url, 0.0, services.bus.partitions, services.settings.game_plugins
    )
    worker = SimpleWorker([scheduler.queue, scheduler.search_queue], connection=services.redis)

    def seat_clock(seat: int) -> dict[str, Any]:
        found: dict[str, Any] = ann.get(f"/api/games/{game_id}/clock").json()["seats"][seat]
        return found

    def events() -> int:
        return int(redis_client.xlen(keys.events(game_id)))

    claimed = claim_timeouts(services.store, services.bus, [game_id], now_ms=now_ms() + DAY + 1, clock=clock)
    assert [seat for _, seat, _ in claimed] == [0]
    wait_until(lambda: state_of(bob, game_id)["to_act"] == [1])
    assert seat_clock(0)["away"] and redis_client.sismember(FORFEITED, game_id)
    hook = ClockTrigger(services.store, services.bus)  # the fold worker's, after the timeout was applied
    hook(game_id, services.store.load(game_id))
    wait_until(lambda: any(e.type == "SeatHandedToBot" for e in services.store.read(game_id)))  # in the log
    roll(bob, game_id)
    # ann's turn again: the clock leaves her seat to the stand-in, however late it is
    assert not claim_timeouts(
        services.store, services.bus, [game_id], now_ms=now_ms() + 30 * DAY, clock=clock
    )
    seq = events()
    assert expire_idle(services, 72, now_ms(), every_ms=1, url=redis_url) == 1
    worker.work(burst=True)
    wait_until(lambda: events() > seq)
    bot_moves = [r for r in services.store.records(game_id) if r.origin == "bot" and r.status == "applied"]
    assert [r.seat for r in bot_moves] == [0]  # the stand-in (greedy) played ann's turn
    wait_until(lambda: redis_client.get(PASS_KEY) is None)
    roll(bob, game_id)
    roll(ann, game_id)  # a move of her own leaves the seat the bot's: taking it back is a control
    assert seat_clock(0)["away"]
    taken = ann.post(f"/api/games/{game_id}/take-back")
    assert taken.status_code == 200, taken.text
    assert not seat_clock(0)["away"] and not seat_clock(0)["bot_plays"]
    again = ann.post(f"/api/games/{game_id}/take-back")
    assert (again.status_code, again.json()["error"]) == (409, "seat_not_away")
    assert not claim_timeouts(services.store, services.bus, [game_id], now_ms=now_ms(), clock=clock)
    report = verify_lines(list(export_lines(services.store, game_id)), TEST_GAMES)
    assert report.ok and report.timeouts == 1, report.problems
    ann.close()
    bob.close()


def test_a_stored_clock_that_is_not_one_times_nothing(redis_url: str, redis_client: redis.Redis) -> None:
    for raw in (
        b"{",
        b'{"kind":"turn","hours":0}',
        b'{"kind":"realtime","minutes":5,"on_timeout":"kick"}',
        b"[]",
    ):
        redis_client.set(clock_key("nosuch"), raw)
        assert GameClocks(redis_client)("nosuch") is None, raw
