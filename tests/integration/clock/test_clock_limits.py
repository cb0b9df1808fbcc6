"""Total time per seat, and the forfeit option: the clock's decisions come from the game's own log."""

from __future__ import annotations

import secrets
import time

from domain.tournament import Entrant, TableFinished
from events.tournament_store import TournamentStore, decode
from services import tournament_service as service
from tests.support.pipeline import services_for
from workers.fold import FoldWorker
from workers.jobs.clock import Clock, claim_timeouts, last_move_ms, read_clocks

ROLL = b'{"type":"Roll"}'


def test_a_seat_out_of_its_total_time_plays_its_default_move(redis_url, redis_client) -> None:
    services = services_for(redis_url)
    services.store.create("eic", "banked", 2, {}, secrets.token_bytes(32))
    worker = FoldWorker(services.redis, services.store, services.bus, block_ms=20)
    last = last_move_ms(services.store, "banked")
    assert last is not None
    clock = Clock(total_ms=60_000)  # no move limit: only the bank counts
    assert claim_timeouts(services.store, services.bus, ["banked"], now_ms=last + 59_000, clock=clock) == []
    [(_, seat, command_id)] = claim_timeouts(
        services.store, services.bus, ["banked"], now_ms=last + 60_000, clock=clock
    )
    worker.run(until_idle=True)
    [record] = [r for r in services.store.records("banked") if r.command_id == command_id]
    assert (record.status, record.origin, record.seat) == ("applied", "clock", seat)
    clocks = read_clocks(services.store, "banked")
    assert clocks.timeouts == {seat: 1} and clocks.used_ms[seat] >= 0


def test_a_forfeited_person_ranks_last_at_their_table_whatever_the_game_said(redis_url, redis_client) -> None:
    services = services_for(redis_url)
    spec = service.TournamentSpec(game="race", entrants=[Entrant(name="ann"), Entrant(name="bob")], rounds=1,
                                  table_size=2, points={2: [6, 1], 1: [6]}, options={"goal": 10}, move_limit_s=3.0, on_timeout="forfeit",
                                  id="tforfeit")  # fmt: skip
    tid = service.create(services, spec)
    service.start(services, redis_url, tid)
    worker = FoldWorker(services.redis, services.store, services.bus, block_ms=20)
    state = service.load(services, tid)
    game_id, players = state.rounds[0].games[0], state.rounds[0].pairing.tables[0]
    ann_seat = players.index(0)  # ann moves at once every turn; bob never moves
    deadline = time.monotonic() + 60
    while service.reconcile(services, redis_url, tid).status != "finished":
        assert time.monotonic() < deadline, "the table did not finish"
        loaded = services.store.load(game_id)
        if loaded.state.winner is None and loaded.state.turn == ann_seat:
            services.bus.submit(game_id, ann_seat, ROLL, None)
        worker.run(until_idle=True)
        time.sleep(0.1)

    [result] = [e for e in map(decode, TournamentStore(services.redis).envelopes(tid)) if isinstance(e, TableFinished)]  # fmt: skip
    assert result.forfeits == (1,) and result.ranking == (0, 1) and result.winners == (0,)
    clocks = read_clocks(services.store, game_id)
    assert set(clocks.timeouts) == {1 - ann_seat}  # bob's seat only, from the game's own log
    points = {row["name"]: row["points"] for row in service.standings_json(service.load(services, tid))}
    assert points == {"ann": 6, "bob": 1}
