"""Issue 42.6: a cancelled tournament's games stayed ``live`` for ever. Now cancelling ends them: every
seat's move from then on is the clock's default move, at once (``clock_due.ENDED``), so each game plays to
its end by its own rules, with no reconcile pass; nothing is recorded in the tournament after the cancel
(no result, the standings stay), no account is rated for it, and the game and the tournament verify."""

from __future__ import annotations

import time
from collections.abc import Callable

from domain.tournament import Entrant, TableFinished
from events.store import LoadedGame
from events.tournament_store import TournamentStore, decode, tournament_key
from services import tournament_service as service
from services.audit.tournament_verify import verify_tournament_lines
from services.audit.verify import verify_lines
from services.bootstrap import Services
from services.export import export_lines
from services.tournament_reconcile import reconcile_running
from tests.conftest import TEST_GAMES
from tests.support.pipeline import services_for
from workers.fold import FoldWorker
from workers.jobs.account_ratings import RatingTrigger, rated_key
from workers.jobs.clock import DUE
from workers.jobs.clock_due import GAMES_ENDED, ClockTrigger, ClockWatcher

ROLL = b'{"type":"Roll"}'


def _started(services: Services, redis_url: str, tid: str) -> list[str]:
    people = [Entrant(name=n) for n in ("ann", "bob", "cy", "dee")]  # no clock: nobody would ever move
    spec = service.TournamentSpec(game="race", entrants=people, rounds=2, table_size=2, options={"goal": 12},
                                  points={2: [6, 1], 1: [6]}, id=tid)  # fmt: skip
    service.start(services, redis_url, service.create(services, spec))
    return list(service.load(services, tid).rounds[0].games)


def _worker(services: Services) -> FoldWorker:
    """A fold worker with the two hooks this is about, as ``workers/runner.py`` wires them."""
    hooks: list[Callable[[str, LoadedGame], None]] = [
        ClockTrigger(services.store, services.bus),
        RatingTrigger(services.redis),
    ]

    def after_applied(game_id: str, loaded: LoadedGame) -> None:
        for hook in hooks:
            hook(game_id, loaded)

    return FoldWorker(services.redis, services.store, services.bus, block_ms=20, on_applied=after_applied)


def _fold_until_ended(services: Services, worker: FoldWorker, games: list[str]) -> None:
    """Fold, with a clock watcher running, until every game has ended (and no reconcile pass)."""
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


def test_cancelling_ends_the_games_being_played_by_default_moves(redis_url, redis_client) -> None:
    services = services_for(redis_url)
    tid = "tcancel"
    games = _started(services, redis_url, tid)
    worker = _worker(services)
    loaded = services.store.load(games[0])
    services.bus.submit(games[0], loaded.state.turn, ROLL, "first-move")  # one move of a person's own
    worker.run(until_idle=True)
    time.sleep(0.3)
    worker.run(until_idle=True)
    assert all(services.store.meta(g).status == "live" for g in games)  # nobody plays: they stand still

    service.cancel(services, redis_url, tid, "storm")
    _fold_until_ended(services, worker, games)

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


def test_the_reconcile_pass_ends_them_when_the_cancel_died_before_arming_them(
    redis_url, redis_client
) -> None:
    services = services_for(redis_url)
    games = _started(services, redis_url, "tlost")
    service.cancel(services, redis_url, "tlost", "storm")
    services.redis.delete(DUE)  # as if the cancelling process died between its append and the arming
    reconcile_running(services, redis_url)
    assert all(services.redis.zscore(DUE, g) is not None for g in games)
    _fold_until_ended(services, _worker(services), games)
    meta = tournament_key("tlost", "meta")
    assert services.redis.hget(meta, GAMES_ENDED) is None
    reconcile_running(services, redis_url)  # none live now: marked, never visited again
    assert services.redis.hget(meta, GAMES_ENDED) == b"1"
