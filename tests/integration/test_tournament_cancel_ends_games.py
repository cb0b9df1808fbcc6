"""Issue 42.6: a cancelled tournament's games stayed ``live`` for ever. Now cancelling ends them: every
seat's move from then on is the clock's default move, at once (``clock_due.ENDED``), so each game plays to
its end by its own rules, with no reconcile pass; nothing is recorded in the tournament after the cancel
(no result, the standings stay), no account is rated for it, and the game and the tournament verify."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from domain.tournament import Entrant, TableFinished
from events.store import LoadedGame
from events.tournament_store import TournamentStore, decode
from services import tournament_service as service
from services.audit.tournament_verify import verify_tournament_lines
from services.audit.verify import verify_lines
from services.export import export_lines
from tests.conftest import TEST_GAMES
from tests.support.pipeline import services_for
from workers.fold import FoldWorker
from workers.jobs.account_ratings import RatingTrigger, rated_key
from workers.jobs.clock_due import ClockTrigger, ClockWatcher

pytestmark = pytest.mark.redis

ROLL = b'{"type":"Roll"}'


def test_cancelling_ends_the_games_being_played_by_default_moves(redis_url, redis_client) -> None:
    services = services_for(redis_url)
    people = [Entrant(name=n) for n in ("ann", "bob", "cy", "dee")]  # no clock: nobody would ever move
    spec = service.TournamentSpec(game="race", entrants=people, rounds=2, table_size=2, options={"goal": 12},
                                  points={2: [6, 1], 1: [6]}, id="tcancel")  # fmt: skip
    tid = service.create(services, spec)
    service.start(services, redis_url, tid)
    games = service.load(services, tid).rounds[0].games
    hooks: list[Callable[[str, LoadedGame], None]] = [
        ClockTrigger(services.store, services.bus),
        RatingTrigger(services.redis),
    ]

    def after_applied(game_id: str, loaded: LoadedGame) -> None:
        for hook in hooks:
            hook(game_id, loaded)

    worker = FoldWorker(services.redis, services.store, services.bus, block_ms=20, on_applied=after_applied)
    loaded = services.store.load(games[0])
    services.bus.submit(games[0], loaded.state.turn, ROLL, "first-move")  # one move of a person's own
    worker.run(until_idle=True)
    time.sleep(0.3)
    worker.run(until_idle=True)
    assert all(services.store.meta(g).status == "live" for g in games)  # nobody plays: they stand still

    service.cancel(services, redis_url, tid, "storm")
    watcher = ClockWatcher(services.store, services.bus)
    watcher.start()
    try:
        deadline = time.monotonic() + 20
        while any(services.store.meta(g).status != "finished" for g in games):
            assert time.monotonic() < deadline, "a cancelled tournament's games went on standing"
            worker.run(until_idle=True)
            time.sleep(0.02)
    finally:
        watcher.stop()
        watcher.join(5)

    for game_id in games:
        records = [
            r for r in services.store.records(game_id) if r.status == "applied" and r.origin != "server"
        ]
        after = [r for r in records if r.command_id != "first-move"]  # the set-up and ann's move aside
        assert after and all(r.origin == "clock" for r in after), [(r.command_id, r.origin) for r in after]
        report = verify_lines(list(export_lines(services.store, game_id)), TEST_GAMES)
        assert report.ok and report.finished, report.problems
        assert not services.redis.sismember(rated_key("race"), game_id)
    state = service.load(services, tid)
    assert state.status == "cancelled" and state.rounds[0].results == (None, None)
    events = list(map(decode, TournamentStore(services.redis).envelopes(tid)))
    assert not any(isinstance(e, TableFinished) for e in events)
    whole = verify_tournament_lines(list(service.export_lines(services, tid)))
    assert whole.ok and whole.status == "cancelled", whole.problems
