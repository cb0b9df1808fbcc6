"""Honest tournament exports always verify (issue 41.6), and an adjudication is proven against its game's
archive (41.4): each case of the report reproduced on a real tournament of the dice race (Redis, the fold
worker, the round's games made by the reconcile pass, finished games archived)."""

from __future__ import annotations

from pathlib import Path

from domain.tournament import Entrant, State
from services import tournament_service as service
from services.archive import archive_missing
from services.audit.tournament_verify import TournamentReport, verify_tournament_lines
from tests.conftest import TEST_GAMES
from tests.support.pipeline import services_for
from workers.fold import FoldWorker

ROLL = b'{"type":"Roll"}'


def _running(services, url: str, tid: str) -> State:
    """A 1-round tournament of 4 people at 2 tables of the race to 6, its games made and none played."""
    spec = service.TournamentSpec(game="race", rounds=1, table_size=2, options={"goal": 6}, id=tid, points={1: [1], 2: [2, 0]},
                                  entrants=[Entrant(name=f"p{n}") for n in range(4)])  # fmt: skip
    service.create(services, spec)
    service.start(services, url, tid)
    return service.reconcile(services, url, tid)


def _play_out(services, game_id: str) -> None:
    """Roll for whichever seat is to act until the game ends."""
    worker = FoldWorker(services.redis, services.store, services.bus, block_ms=20)
    for _ in range(500):
        loaded = services.store.load(game_id)
        if loaded.game.outcome(loaded.state) is not None:
            return
        for seat in loaded.game.to_act(loaded.state):
            services.bus.submit(game_id, seat, ROLL)
        worker.run(until_idle=True)
    raise AssertionError(f"{game_id} did not end")


def _verify(services, tid: str, archives: Path) -> TournamentReport:
    return verify_tournament_lines(list(service.export_lines(services, tid)), archives, TEST_GAMES)


def _first_table_ended(services, url: str, tid: str, archives: Path) -> State:
    state = _running(services, url, tid)
    first = state.rounds[0].games[0]
    _play_out(services, first)
    assert archive_missing(services.store, [first], archives)[0].get("verified")
    return state


def test_a_running_tournament_exported_mid_round_verifies(redis_url, redis_client, tmp_path) -> None:
    """Table 1's game ended (and is archived) before the round closed; table 2 still plays."""
    services = services_for(redis_url)
    _first_table_ended(services, redis_url, "mid", tmp_path)
    report = _verify(services, "mid", tmp_path)
    assert report.ok, report.problems
    assert report.status == "running" and report.proven == 0
    assert report.unrecorded == ["mid-r1-t1"]


def test_a_cancelled_tournament_with_an_ended_but_unclosed_table_verifies(
    redis_url, redis_client, tmp_path
) -> None:
    services = services_for(redis_url)
    _first_table_ended(services, redis_url, "gone", tmp_path)
    service.cancel(services, redis_url, "gone", "the hall closed")
    report = _verify(services, "gone", tmp_path)
    assert report.ok, report.problems
    assert report.status == "cancelled" and report.unrecorded == ["gone-r1-t1"]


def test_a_closed_round_is_proven_against_both_archives(redis_url, redis_client, tmp_path) -> None:
    services = services_for(redis_url)
    state = _first_table_ended(services, redis_url, "whole", tmp_path)
    _play_out(services, state.rounds[0].games[1])
    archive_missing(services.store, list(state.rounds[0].games), tmp_path)
    assert service.reconcile(services, redis_url, "whole").status == "finished"
    report = _verify(services, "whole", tmp_path)
    assert report.ok and report.proven == 2 and not report.unrecorded, report.problems


def test_an_adjudicated_table_is_proven_against_its_game_s_archive(redis_url, redis_client, tmp_path) -> None:
    """Issue 41.4: table 2 is adjudicated before its game ended (which then plays on to its end, archived);
    ``tournament verify`` proves the adjudication against that archive instead of listing it unproven."""
    services = services_for(redis_url)
    state = _first_table_ended(services, redis_url, "adj", tmp_path)
    second = state.rounds[0].games[1]
    service.adjudicate(services, redis_url, "adj", 1, 2, list(state.rounds[0].pairing.tables[1]), "no-show")
    _play_out(services, second)
    archive_missing(services.store, [second], tmp_path)
    assert service.reconcile(services, redis_url, "adj").status == "finished"
    report = _verify(services, "adj", tmp_path)
    assert report.ok, report.problems
    assert report.adjudicated_proven == [f"{second}: no-show"] and report.adjudicated == []
    assert report.proven == 1  # table 1, from its game


def test_a_finished_game_adjudicated_anyway_is_caught(redis_url, redis_client, tmp_path) -> None:
    """The report's case as the server before the fix recorded it: the organiser's ranking over a game that
    had ended (the service now answers 409; here the decision is appended as that server did)."""
    from domain.tournament import rules as tournament_rules
    from events.tournament_store import TournamentStore

    services = services_for(redis_url)
    state = _first_table_ended(services, redis_url, "over", tmp_path)
    first = state.rounds[0].games[0]
    try:
        service.adjudicate(services, redis_url, "over", 1, 1, [1, 0], "overrule")
    except service.RuleViolation as exc:
        assert exc.code == "tournament.game_over"
    else:
        raise AssertionError("a game over was adjudicated")
    store = TournamentStore(services.redis)
    loaded = store.load("over")
    ranking = tuple(reversed(loaded.state.rounds[0].pairing.tables[0]))
    position = services.store.meta(first).last_hash
    events = tournament_rules.adjudicate(loaded.state, 1, 0, ranking, position, "overrule")
    assert store.append(loaded, "adjudicate-r1-t1", events).status == "ok"
    report = _verify(services, "over", tmp_path)
    assert any("adjudicated after its game had ended" in p for p in report.problems), report.problems
