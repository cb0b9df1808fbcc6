"""``GET /api/games/{id}/clock``: a tournament game's limits, its last move's time, each seat's used time and
timeouts (as the clock service counts them) and the server's now; a game with no clock says so."""

from __future__ import annotations

import time

import httpx
import msgspec

from events.store import now_ms
from services import tournament_service as service
from services.gateway.api.clocks_http import GameClock
from tests.support.client import bearer
from tests.support.pipeline import services_for
from workers.jobs.clock import Clock, claim_timeouts, last_move_ms

SPEC = {"game": "race", "entrants": [{"name": "ann"}, {"name": "bob"}], "rounds": 1, "table_size": 2,
        "points": {"2": [6, 1], "1": [6]}, "options": {"goal": 50}, "move_limit_s": 1, "total_limit_s": 300,
        "id": "tclock"}  # fmt: skip
MOVE_MS = 1_000
"""Short, so that the silent seat's timeout is really due (the fold worker refuses one the log's times do
not justify: ``workers/timeout_guard.py``); the stack runs no clock of its own, so nothing claims it first."""


def _clock(api: httpx.Client, game_id: str, token: str | None = None) -> GameClock:
    answer = api.get(f"/api/games/{game_id}/clock", headers=bearer(token) if token else {})
    assert answer.status_code == 200, answer.text
    return msgspec.json.decode(answer.content, type=GameClock)


def _wait_for(api: httpx.Client, game_id: str, seq_above: int) -> GameClock:
    deadline = time.monotonic() + 30
    while (clock := _clock(api, game_id)).seq <= seq_above:
        assert time.monotonic() < deadline, "the move was not applied"
        time.sleep(0.05)
    return clock


def test_a_tournament_game_s_clock_counts_each_seat_s_time_and_timeouts(
    api: httpx.Client, redis_url: str
) -> None:
    created = api.post("/api/tournaments", json=SPEC)
    assert created.status_code == 201, created.text
    keys = {p["name"]: p["key"] for p in created.json()["people"]}
    organiser = bearer(created.json()["organiser_key"])
    assert api.post("/api/tournaments/tclock/start", headers=organiser).status_code == 200
    game_id = "tclock-r1-t1"

    before = time.time() * 1000
    clock = _clock(api, game_id, keys["ann"])
    assert (clock.move_limit_ms, clock.total_limit_ms, clock.on_timeout) == (MOVE_MS, 300_000, "default_move")
    assert clock.running and clock.game_id == game_id and len(clock.to_act) == 1
    assert clock.last_move_ms is not None and clock.last_move_ms <= clock.now_ms
    assert before - 5_000 <= clock.now_ms <= time.time() * 1000 + 5_000  # the server's now, in ms
    assert [(s.seat, s.used_ms, s.timeouts) for s in clock.seats] == [(0, 0, 0), (1, 0, 0)]

    # The seat to act thinks a moment, then moves: the time since the last event is charged to it.
    [mover] = clock.to_act
    state = service.load(services_for(redis_url), "tclock")
    token = keys[["ann", "bob"][state.rounds[0].pairing.tables[0][mover]]]
    time.sleep(0.2)
    posted = api.post(f"/api/games/{game_id}/commands?wait=true", json={"command": {"type": "Roll"}},
                      headers=bearer(token))  # fmt: skip
    assert posted.status_code == 200, posted.text
    moved = _wait_for(api, game_id, clock.seq)
    assert moved.seats[mover].used_ms >= 200 and moved.seats[1 - mover].used_ms == 0
    assert moved.last_move_ms is not None and moved.last_move_ms >= clock.last_move_ms + 200

    # The other seat stays silent past the limit: the clock plays its default move, counted as a timeout.
    services = services_for(redis_url)
    silent = moved.to_act[0]
    last = last_move_ms(services.store, game_id)
    assert last is not None
    while now_ms() < last + MOVE_MS:  # the limit passes for real
        time.sleep(0.05)
    claimed = claim_timeouts(
        services.store, services.bus, [game_id], now_ms=now_ms(), clock=Clock(move_ms=MOVE_MS)
    )
    assert [(g, s) for g, s, _ in claimed] == [(game_id, silent)]
    timed_out = _wait_for(api, game_id, moved.seq)
    assert timed_out.seats[silent].timeouts == 1 and timed_out.seats[1 - silent].timeouts == 0
    events = api.get(f"/api/games/{game_id}/events?from={moved.seq}").json()["events"]
    assert events[0]["command_id"].startswith("timeout-") and events[0]["seat"] == silent


def test_a_game_with_no_clock_says_so_and_refusals(api: httpx.Client) -> None:
    created = api.post("/api/games", json={"game": "race", "seats": 2}).json()
    clock = _clock(api, created["game_id"])
    assert (clock.move_limit_ms, clock.total_limit_ms, clock.running, clock.seats) == (None, None, False, [])
    assert api.get("/api/games/nope/clock").status_code == 404
    wrong = api.get(f"/api/games/{created['game_id']}/clock", headers=bearer("not-a-token"))
    assert wrong.status_code == 403
