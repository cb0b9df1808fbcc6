"""A clock timeout is applied only at the position it was claimed at, once its seat is out of time by the
game's own log (issue 42: after a Redis kill, about one short tournament chaos run in five ended with a
timeout claimed for seq 310 applied at 313, 76 ms after its seat came to act, which ``tournament verify``
refused).

The race, made deterministic here: a claimer (the clock watcher, the reconcile pass) read when the game last
moved, then the game moved on (a seat's move at the last moment of its clock, or a backlog being folded after
Redis came back), then it loaded the game: it held the new position to the old position's time, found the
new seat to act long out of time and claimed its default move. Two guards now: the claimer reads the time
from the very position it loaded, and the fold worker drops (dead-letters, with the reason) any timeout not
claimed at the game's position or not due by the log's own times, whoever claimed it."""

from __future__ import annotations

import logging
from collections.abc import Iterator, MutableMapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, cast

import structlog
from structlog.testing import capture_logs

from domain.tournament import Entrant
from events.clocks import tournament_clock
from events.store import EventStore, now_ms
from services import tournament_service as service
from services.archive import archive_missing
from services.audit.tournament_verify import TournamentReport, verify_tournament_lines
from services.bootstrap import Services
from tests.conftest import TEST_GAMES
from tests.support.pipeline import services_for
from workers.fold import FoldWorker
from workers.jobs.clock import claim_timeouts, last_move_ms, timeout_command_id

ROLL = b'{"type":"Roll"}'
MOVE_LIMIT_S = 60.0
"""Far above any honest turn here: every timeout this test sees is one claimed too early."""


def _tournament(services: Services, redis_url: str, tid: str) -> str:
    people = [Entrant(name="ann"), Entrant(name="bob")]
    spec = service.TournamentSpec(game="race", entrants=people, rounds=1, table_size=2, options={"goal": 20},
                                  points={2: [6, 1], 1: [6]}, move_limit_s=MOVE_LIMIT_S, id=tid)  # fmt: skip
    service.create(services, spec)
    service.start(services, redis_url, tid)
    return service.load(services, tid).rounds[0].games[0]


@contextmanager
def info_logs() -> Iterator[list[MutableMapping[str, Any]]]:
    """The log's events from info up (the tests' level is warning), captured."""
    level = structlog.get_config()["wrapper_class"]
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.INFO))
    try:
        with capture_logs() as logs:
            yield logs
    finally:
        structlog.configure(wrapper_class=level)


def _to_act(services: Services, game_id: str) -> int:
    loaded = services.store.load(game_id)
    seat: int = next(iter(loaded.game.to_act(loaded.state)))
    return seat


def _roll(services: Services, worker: FoldWorker, game_id: str) -> None:
    services.bus.submit(game_id, _to_act(services, game_id), ROLL)
    worker.run(until_idle=True)


def _finish_and_verify(
    services: Services, worker: FoldWorker, redis_url: str, tid: str, game_id: str, archives: Path
) -> TournamentReport:
    """Both seats roll to the end; the game is archived, the round recorded, and the tournament's export
    verified against the archive (where each timeout is held to the tournament's clock)."""
    for _turn in range(200):
        if services.store.meta(game_id).status == "finished":
            break
        _roll(services, worker, game_id)
    assert services.store.meta(game_id).status == "finished"
    assert archive_missing(services.store, [game_id], archives)[0].get("verified")
    assert service.reconcile(services, redis_url, tid).status == "finished"
    report = verify_tournament_lines(list(service.export_lines(services, tid)), archives, TEST_GAMES)
    return report


class MovesOnWhileLoading:
    """The real store, but the game moves on (a seat's move folded) just before the claimer loads it: the
    moment between its read of the last event's time and its load, where the race fell."""

    def __init__(self, store: EventStore, move: Any) -> None:
        self.store, self.move, self.moved = store, move, False

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)

    def load(self, game_id: str) -> Any:
        if not self.moved:
            self.moved = True
            self.move()
        return self.store.load(game_id)


def test_a_claimer_racing_a_move_claims_no_timeout_the_log_does_not_justify(
    redis_url, redis_client, tmp_path
) -> None:
    services = services_for(redis_url)
    game_id = _tournament(services, redis_url, "tclaimrace")
    worker = FoldWorker(services.redis, services.store, services.bus, block_ms=20)
    last = last_move_ms(services.store, game_id)
    assert last is not None

    def seat_moves_at_the_last_moment() -> None:
        while now_ms() <= last:  # its move is dated after the position before it (a distinct millisecond)
            pass
        _roll(services, worker, game_id)

    store = MovesOnWhileLoading(services.store, seat_moves_at_the_last_moment)
    clock = tournament_clock(MOVE_LIMIT_S, 0, 0, False)
    # the watcher, at the deadline of the seat to act at ``last``: that seat moves as it claims
    claimed = claim_timeouts(cast(EventStore, store), services.bus, [game_id],
                             now_ms=last + int(MOVE_LIMIT_S * 1000), clock=clock)  # fmt: skip
    assert store.moved
    worker.run(until_idle=True)
    assert claimed == [], "the new seat to act had just come to act: nothing was due"
    assert not [r for r in services.store.records(game_id) if r.origin == "clock"]
    report = _finish_and_verify(services, worker, redis_url, "tclaimrace", game_id, tmp_path)
    assert report.ok and report.proven == 1, report.problems


def test_the_fold_drops_a_timeout_claimed_early_or_for_an_older_position(
    redis_url, redis_client, tmp_path
) -> None:
    """The fold worker's own check, whatever the claimer did: a timeout sent at once for the seat that has
    just come to act (the race's result), and one for a position the game has left (the report's case:
    claimed for one position, folded three later) are dropped, and the game verifies."""
    services = services_for(redis_url)
    game_id = _tournament(services, redis_url, "tearly")
    worker = FoldWorker(services.redis, services.store, services.bus, block_ms=20)
    seed = services.store.load(game_id).meta.seed
    _roll(services, worker, game_id)
    at, seat = services.store.meta(game_id).last_seq, _to_act(services, game_id)
    early = timeout_command_id(seed, at, seat)
    with info_logs() as logs:
        services.bus.submit(game_id, seat, ROLL, early, origin="clock")
        worker.run(until_idle=True)
        assert services.store.meta(game_id).last_seq == at, "the early timeout was applied"

        _roll(services, worker, game_id)  # the seat moves by itself, then the other seat: its turn again
        _roll(services, worker, game_id)
        assert _to_act(services, game_id) == seat
        stale = timeout_command_id(seed, at, seat)  # a second copy of the claim at ``at``, folded later
        services.bus.submit(game_id, seat, ROLL, stale, origin="clock")
        worker.run(until_idle=True)
    assert services.store.meta(game_id).last_seq == at + 2, "the timeout for an older position was applied"
    assert not [r for r in services.store.records(game_id) if r.origin == "clock"]
    reasons = [entry["reason"] for entry in logs if entry["event"] == "timeout_dropped"]
    assert len(reasons) == 2, logs
    assert "within its clock" in reasons[0] and f"claimed at seq {at}" in reasons[1], reasons
    assert not services.bus.dead_letters()  # routine, not poison: acknowledged and logged only
    assert services.bus.backlog() == 0  # both acknowledged

    report = _finish_and_verify(services, worker, redis_url, "tearly", game_id, tmp_path)
    assert report.ok and report.proven == 1, report.problems
