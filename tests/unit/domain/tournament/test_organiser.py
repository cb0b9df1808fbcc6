"""Organiser actions in the rules (issue 33.10): a withdrawn player is never paired again and keeps their
results but wins nothing; a cancelled tournament pairs and records nothing more."""

from __future__ import annotations

import pytest

from domain import GAMES
from domain.engine import RuleViolation
from domain.tournament import (
    Entrant,
    State,
    TableFinished,
    TournamentSettings,
    current_standings,
    fold,
    rules,
)


def _started(players: int, **settings: object) -> State:
    game = GAMES["manila"]
    created = rules.create("t", TournamentSettings(**{"game": "manila", "table_size": 3, **settings}),  # type: ignore[arg-type]
                           [Entrant(name=f"p{i}", bot="random") for i in range(players)],
                           min_seats=game.min_seats, max_seats=game.max_seats, pairing_seed=b"seed")  # fmt: skip
    state = fold(created)
    return fold(rules.start(state), state)


def _finish_round(state: State) -> State:
    current = state.current()
    assert current is not None
    finished = [TableFinished(round=current.number, table=t, ranking=players, scores=(9, 5, 1), winners=players[:1],
                              final_hash="h") for t, players in enumerate(current.pairing.tables)]  # fmt: skip
    return fold(rules.record_tables(state, finished), state)


def test_a_withdrawn_player_keeps_results_is_never_paired_again_and_wins_nothing() -> None:
    state = _started(7, rounds=3)
    round_one = state.rounds[0]
    leaving = round_one.pairing.tables[0][0]  # first at their table: the round's best result
    state = fold(rules.withdraw(state, leaving, "ill"), state)
    state = _finish_round(state)
    for _ in range(2):
        current = state.current()
        assert current is not None and leaving not in current.pairing.seated() + list(current.pairing.byes)
        state = _finish_round(state)
    assert state.status == "finished" and leaving not in state.winners
    row = next(r for r in current_standings(state) if r.player == leaving)
    assert row.tables == 1 and row.values[0] == 6  # round 1's first place kept
    with pytest.raises(RuleViolation, match="not_running"):
        rules.withdraw(state, leaving)


def test_withdrawing_below_a_table_ends_the_tournament_and_cancel_stops_it() -> None:
    state = _started(4, rounds=3)
    for player in (0, 1):
        state = fold(rules.withdraw(state, player), state)
    state = _finish_round(state)  # 2 left cannot fill a Manila table: it ends after the round
    assert state.status == "finished"
    state = _started(6, rounds=3)
    state = fold(rules.cancel(state, "storm"), state)
    assert state.status == "cancelled"
    current = state.current()
    assert current is not None
    with pytest.raises(RuleViolation, match="not_running"):
        rules.record_table(state, TableFinished(round=1, table=0, ranking=current.pairing.tables[0], scores=(3, 2, 1),
                                                winners=(), final_hash="h"))  # fmt: skip
    with pytest.raises(RuleViolation, match="not_running"):
        rules.cancel(state)
    with pytest.raises(RuleViolation, match="player"):
        rules.withdraw(_started(6, rounds=1), 99)


def test_refusals_count_tables_from_one_as_the_api_does() -> None:
    """Issue 41.6: "round 1 table 0" was the first table; the API and every page count from 1."""
    state = _started(6, rounds=2)
    tables = state.rounds[0].pairing.tables
    first = TableFinished(
        round=1, table=0, ranking=tables[0], scores=(9, 5, 1), winners=tables[0][:1], final_hash="h"
    )
    state = fold(rules.record_table(state, first), state)
    with pytest.raises(RuleViolation, match="round 1 table 1 is already recorded"):
        rules.record_table(state, first)
    with pytest.raises(RuleViolation, match="round 1 has no table 3"):
        rules.record_table(state, TableFinished(round=1, table=2, ranking=tables[0], scores=(1, 1, 1),
                                                winners=(), final_hash="h"))  # fmt: skip


@pytest.mark.parametrize("reason", ["\x00", "\x1b[32mOK", "a\rb", "\x9b", "\u202e", "\u2067"])
def test_an_organiser_s_reason_is_printable_text(reason: str) -> None:
    """Issue 41.5: withdraw, adjudicate and cancel refuse control and bidi characters."""
    state = _started(6, rounds=2)
    table = state.rounds[0].pairing.tables[0]
    for decide in (lambda: rules.withdraw(state, 0, reason), lambda: rules.cancel(state, reason),
                   lambda: rules.adjudicate(state, 1, 0, table, "h", f"late {reason}")):  # fmt: skip
        with pytest.raises(RuleViolation, match="printable"):
            decide()
