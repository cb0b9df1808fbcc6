"""A silent seat times out and the game goes on: the timeout is a command in the game's log (through the
bus and the fold worker like any other), and the finished game verifies with every decision re-checked."""

from __future__ import annotations

import secrets

from services.audit.verify import verify_lines
from services.export import export_lines
from tests.conftest import TEST_GAMES
from tests.support.pipeline import services_for
from workers.fold import FoldWorker
from workers.jobs.clock import claim_timeouts, last_move_ms


def test_silent_seats_time_out_and_the_game_verifies(redis_url, redis_client) -> None:
    services = services_for(redis_url)
    services.store.create("eic", "silent", 2, {}, secrets.token_bytes(32))  # two people who never move
    worker = FoldWorker(services.redis, services.store, services.bus, block_ms=20)
    last = last_move_ms(services.store, "silent")
    assert last is not None
    # Within the limit nobody is timed out.
    assert (
        claim_timeouts(services.store, services.bus, ["silent"], limit_ms=60_000, now_ms=last + 1_000) == []
    )
    claims = 0
    while services.store.meta("silent").status != "finished":
        claimed = claim_timeouts(services.store, services.bus, ["silent"], limit_ms=0, now_ms=last + 10**9)
        # Claiming the same timeout twice submits a duplicate, which the append refuses.
        claim_timeouts(services.store, services.bus, ["silent"], limit_ms=0, now_ms=last + 10**9)
        assert claimed
        claims += len(claimed)
        worker.run(until_idle=True)
        assert claims < 5_000
    records = services.store.records("silent")[1:]
    assert records and all(r.command_id.startswith("timeout-") for r in records)
    assert sum(r.status == "applied" for r in records) == claims
    report = verify_lines(list(export_lines(services.store, "silent")), TEST_GAMES)
    assert report.ok and report.decisions_checked, report.problems


def test_a_tournament_whose_bots_never_move_still_finishes_on_the_clock(redis_url, redis_client) -> None:
    """No rq worker at all: every bot is as good as crashed. The tournament's move clock plays for them."""
    from services import tournament_service as service

    services = services_for(redis_url)
    spec = service.TournamentSpec(
        game="eic", rounds=1, table_size=2, players=4, move_limit_s=0.001, id="tclock"
    )
    tid = service.create(services, spec)
    service.start(services, redis_url, tid)
    worker = FoldWorker(services.redis, services.store, services.bus, block_ms=20)
    for _ in range(2_000):
        if service.reconcile(services, redis_url, tid).status == "finished":
            break
        worker.run(until_idle=True)
    state = service.load(services, tid)
    assert state.status == "finished"
    for game_id in state.rounds[0].games:
        records = services.store.records(game_id)[1:]
        assert records and all(r.command_id.startswith("timeout-") for r in records)
