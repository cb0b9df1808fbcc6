"""The no-show deadline without a move clock (issue 33): a seat that never moves by itself is to act for
``no_show_s`` in all, then the clock plays its moves at once and the table forfeits it (``absent``), not
rated; a person who moves, however slowly between their moves, is never touched. The export verifies."""

from __future__ import annotations

import secrets
import time

from domain.tournament import Entrant, Rating, TableFinished
from events.tournament_store import TournamentStore, decode
from services import tournament_service as service
from services.audit.tournament_verify import verify_tournament_lines
from tests.support.pipeline import services_for
from workers.fold import FoldWorker
from workers.jobs.clock import Clock, SeatClocks, claim_timeouts, last_move_ms

ROLL = b'{"type":"Roll"}'


def test_the_deadline_counts_only_seats_that_never_moved_and_then_acts_at_once() -> None:
    clock = Clock(no_show_ms=60_000)
    assert not clock.out_of_time(SeatClocks(), 0, 59_999)
    assert clock.out_of_time(SeatClocks(), 0, 60_000)
    came = SeatClocks(moved={0}, used_ms={0: 600_000})
    assert not clock.out_of_time(came, 0, 3_600_000)  # slow, but here: no move clock, no deadline
    gone = SeatClocks(used_ms={0: 60_000}, timeouts={0: 1})
    assert clock.out_of_time(gone, 0, 0)  # a no-show already: each later turn at once


def test_a_game_without_a_move_clock_plays_a_no_show_s_moves_after_the_deadline(
    redis_url, redis_client
) -> None:
    services = services_for(redis_url)
    services.store.create("race", "waiting", 2, {"goal": 8}, secrets.token_bytes(32))
    last = last_move_ms(services.store, "waiting")
    assert last is not None
    clock = Clock(no_show_ms=30_000)
    assert claim_timeouts(services.store, services.bus, ["waiting"], now_ms=last + 29_000, clock=clock) == []
    [(_, seat, _)] = claim_timeouts(
        services.store, services.bus, ["waiting"], now_ms=last + 30_000, clock=clock
    )
    assert seat == 0


def test_a_no_show_without_a_clock_forfeits_and_the_tournament_finishes(redis_url, redis_client) -> None:
    services = services_for(redis_url)
    people = [Entrant(name=n) for n in ("ann", "bob")]  # bob never moves; ann takes her time
    spec = service.TournamentSpec(game="race", entrants=people, rounds=1, table_size=2, options={"goal": 8},
                                  points={2: [6, 1], 1: [6]}, no_show_s=1.0, id="tnoshow")  # fmt: skip
    tid = service.create(services, spec)
    assert service.describe(services, tid, False)["clock"]["no_show_s"] == 1.0
    service.start(services, redis_url, tid)
    worker = FoldWorker(services.redis, services.store, services.bus, block_ms=20)
    deadline = time.monotonic() + 60
    while (state := service.reconcile(services, redis_url, tid)).status != "finished":
        assert time.monotonic() < deadline, service.summary(state, full=False)
        current = state.current()
        assert current is not None
        game_id, table = current.games[0], current.pairing.tables[0]
        loaded = services.store.load(game_id)
        if loaded.state.winner is None and table[loaded.state.turn] == 0:
            time.sleep(1.2)  # ann is slower than the deadline between her moves: she came, it never applies
            services.bus.submit(game_id, loaded.state.turn, ROLL, None)
        worker.run(until_idle=True)
        time.sleep(0.1)

    [result] = [
        e for e in map(decode, TournamentStore(services.redis).envelopes(tid)) if isinstance(e, TableFinished)
    ]
    assert result.absent == (1,) and 1 in result.forfeits and result.ranking == (0, 1)
    game_id, table = state.rounds[0].games[0], state.rounds[0].pairing.tables[0]
    clocked = {table[r.seat] for r in services.store.records(game_id) if r.origin == "clock"}
    assert clocked == {1}  # only bob's moves were the clock's
    final = service.load(services, tid)
    assert final.ratings[1] == Rating() and final.ratings[0] == Rating()  # a table of one rated player
    assert [final.entrants[p].name for p in final.winners] == ["ann"]
    report = verify_tournament_lines(list(service.export_lines(services, tid)))
    assert report.ok, report.problems
