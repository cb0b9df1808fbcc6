"""Issue 33.10's scenario, on the real pipeline (store, bus, fold worker, the reconcile pass serve runs):
a Swiss of four people under a move clock, one of whom never moves and one who is withdrawn during round
1 (she plays it out). It finishes; the no-show is forfeited at each table and never rated; the withdrawn player keeps round
1's result and is not paired again; a table stuck in round 2 is adjudicated by the organiser; the export
verifies, every decision re-decided and the adjudication named."""

from __future__ import annotations

import time

from domain.tournament import Entrant, Rating, TableFinished
from events.tournament_store import TournamentStore, decode
from services import tournament_service as service
from services.audit.tournament_verify import verify_tournament_lines
from tests.support.pipeline import services_for
from workers.fold import FoldWorker

ROLL = b'{"type":"Roll"}'


def test_a_no_show_and_a_withdrawal_and_an_adjudication(redis_url, redis_client) -> None:
    services = services_for(redis_url)
    people = [Entrant(name=n) for n in ("ann", "bob", "cara", "dan")]  # bob never moves
    spec = service.TournamentSpec(game="race", entrants=people, rounds=2, table_size=2, options={"goal": 8},
                                  points={2: [6, 1], 1: [6]}, move_limit_s=1.0, id="tabsent")  # fmt: skip
    tid = service.create(services, spec)
    service.start(services, redis_url, tid)
    worker = FoldWorker(services.redis, services.store, services.bus, block_ms=20)
    moving = {0, 2, 3}
    stuck: str | None = None
    deadline = time.monotonic() + 120
    while (state := service.reconcile(services, redis_url, tid)).status != "finished":
        assert time.monotonic() < deadline, service.summary(state, full=False)
        current = state.current()
        assert current is not None
        if current.number == 1 and 2 not in state.withdrawn:  # cara plays round 1 out, then goes home
            service.withdraw(services, redis_url, tid, 2, "goes home after round 1")
        if current.number == 2 and stuck is None:  # dan's table is decided by the organiser
            index = next(i for i, t in enumerate(current.pairing.tables) if 3 in t)
            stuck = current.games[index]
            ranking = sorted(current.pairing.tables[index], key=lambda p: p != 3)
            service.adjudicate(
                services, redis_url, tid, 2, index + 1, ranking, "dan's game stalled: dan leads"
            )
            moving = {0}
        for game_id, table in zip(current.games, current.pairing.tables, strict=True):
            loaded = services.store.load(game_id)
            if loaded.state.winner is None and table[loaded.state.turn] in moving and game_id != stuck:
                services.bus.submit(game_id, loaded.state.turn, ROLL, None)
        worker.run(until_idle=True)
        time.sleep(0.1)

    results = [
        e for e in map(decode, TournamentStore(services.redis).envelopes(tid)) if isinstance(e, TableFinished)
    ]
    played = [r for r in results if not r.adjudicated]
    for result in played:  # bob sat at a table and never moved: a no-show there, forfeited, never rated
        if 1 in result.ranking and len(result.ranking) > 1:
            assert 1 in result.absent and 1 in result.forfeits
            assert set(result.ranking[-len(result.absent) :]) == set(result.absent)  # no-shows last
    final = service.load(services, tid)
    assert final.ratings[1] == Rating()  # bob: not rated for games he never played
    assert [r.adjudicated for r in results if r.adjudicated] == ["dan's game stalled: dan leads"]
    assert 2 in final.withdrawn and all(2 not in t for t in final.rounds[1].pairing.tables)
    assert 2 not in final.rounds[1].pairing.byes and 2 not in final.winners
    cara = next(r for r in service.standings_json(final) if r["player"] == 2)
    assert cara["withdrawn"] and cara["tables"] == 1  # round 1 kept
    report = verify_tournament_lines(list(service.export_lines(services, tid)))
    assert report.ok, report.problems
    assert len(report.adjudicated) == 1 and "dan's game stalled" in report.adjudicated[0]
