"""Many games through the bus with two real worker processes, and a worker killed with SIGKILL."""

from __future__ import annotations

import os
import signal

import msgspec

from events import codec, keys
from tests.support.pipeline import (
    SETUP_ID,
    eventually,
    new_race,
    services_for,
    stop_process,
    wait_for_results,
    worker_process,
)

ROLL = b'{"type":"Roll"}'
GAMES = 200
ROUNDS = 10
KILL_ROUNDS = 60
"""The kill test's rounds: enough that the victim, killed once it has folded 150 commands, cannot have
folded them all before the kill lands (with 10, on a busy machine it once had: 2,000 in the gap)."""
SEATS = 2


def _submit_round(services, round_no: int) -> list[tuple[str, str, int]]:
    """One command per game; seats alternate, so a command applied out of order would be rejected."""
    messages = [
        services.bus.message(f"g{g}", round_no % SEATS, ROLL, f"g{g}-r{round_no}") for g in range(GAMES)
    ]
    services.bus.submit_many(messages)
    return [(m.game_id, m.command_id, m.seat) for m in messages]


def _assert_applied_once_in_order_and_replayable(services, rounds: int = ROUNDS) -> None:
    for g in range(GAMES):
        game_id = f"g{g}"
        records = services.store.records(game_id)
        ids = [r.command_id for r in records]
        assert ids == [SETUP_ID] + [f"{game_id}-r{r}" for r in range(rounds)], f"{game_id}: {ids}"
        assert all(r.status == "applied" for r in records), [r.code for r in records if r.status != "applied"]
        envelopes = services.store.read(game_id)
        assert [e.seq for e in envelopes] == list(range(1, rounds + 2))
        assert [e.command_id for e in envelopes[1:]] == ids[1:]
        loaded = services.store.load(game_id)
        replayed = loaded.game.fold([codec.decode_event(loaded.game, e) for e in envelopes])
        assert msgspec.msgpack.encode(replayed) == msgspec.msgpack.encode(loaded.state)


def test_200_concurrent_games_with_two_worker_processes(redis_url, redis_client) -> None:
    services = services_for(redis_url)
    for g in range(GAMES):
        new_race(services, f"g{g}", seats=SEATS)
    workers = [worker_process(redis_url), worker_process(redis_url)]
    try:
        wanted = []
        for round_no in range(ROUNDS):
            wanted += _submit_round(services, round_no)
        wait_for_results(services, wanted, timeout=120)
        folded_by = {r.command_id for g in range(GAMES) for r in services.store.records(f"g{g}")[1:]}
        assert (
            len(folded_by) == GAMES * ROUNDS
        )  # every command once (the set-ups left out: their ids are random)
    finally:
        codes = [stop_process(w) for w in workers]
    assert codes == [0, 0], "a warm stop exits cleanly"
    _assert_applied_once_in_order_and_replayable(services)
    assert services.bus.backlog() == 0


def test_kill_9_of_a_worker_loses_no_command_and_applies_none_twice(redis_url, redis_client) -> None:
    services = services_for(redis_url)
    for g in range(GAMES):
        new_race(services, f"g{g}", seats=SEATS)
    wanted = []
    for round_no in range(KILL_ROUNDS):
        wanted += _submit_round(services, round_no)
    victim = worker_process(redis_url, extra_args=["--batch", "8"])
    survivor = None
    try:
        eventually(lambda: _applied(services) >= 150, timeout=60, message="the victim folding")
        os.kill(victim.pid, signal.SIGKILL)
        victim.wait()
        at_kill = _applied(services)
        assert at_kill < GAMES * KILL_ROUNDS, "the kill must land in the middle of the stream"
        survivor = worker_process(redis_url)
        wait_for_results(services, wanted, timeout=120)
    finally:
        if survivor is not None:
            stop_process(survivor)
        if victim.poll() is None:
            victim.kill()
    _assert_applied_once_in_order_and_replayable(services, KILL_ROUNDS)
    assert services.bus.backlog() == 0


def _applied(services) -> int:
    """Commands recorded so far in every game (the metrics hash is only added to now and then)."""
    pipe = services.redis.pipeline(transaction=False)
    for g in range(GAMES):
        pipe.hlen(keys.results(f"g{g}"))
    return sum(int(n) - 2 for n in pipe.execute())  # minus the set-up record and the position
