"""Issue 42.4 and 42.5, elimination under pairing rules 3.

42.4: a tie in the final crowned one player by seat order (scores 114, 114: places [0, 0, …], both 6
points, but ``TournamentFinished.winners`` named one and the standings ranked them 100 vs 99). Tied
winners are all winners, and the standings rank them equal.

42.5: 9 players at tables of 3, one going on from each; two of round 1's table winners withdrawn while the
tournament was paused; it ended after round 1, the lone survivor declared winner, the withdrawn players
ranked 1st and 2nd above him. Elimination plays to a final while a table can be filled, the next at a
withdrawn player's table going on in his place, and withdrawn players rank after everyone still in.

Tournaments created under rules 2 keep the old decisions (checked here too).
"""

from __future__ import annotations

from msgspec.structs import replace

from domain import GAMES
from domain.engine import Outcome
from domain.tournament import (
    Entrant,
    State,
    TableFinished,
    TournamentFinished,
    TournamentSettings,
    current_standings,
    default_tie_breaks,
    fold,
    rules,
)
from domain.tournament.results import table_finished


def _started(players: int, rules_version: int = rules.RULES) -> State:
    spec = GAMES["manila"]
    settings = TournamentSettings(game="manila", format="elimination", table_size=3, advance=1,
                                  tie_breaks=default_tie_breaks("elimination"))  # fmt: skip
    entrants = [Entrant(name=f"p{i}", bot="greedy") for i in range(players)]
    created = rules.create("el", settings, entrants, min_seats=spec.min_seats, max_seats=spec.max_seats,
                           pairing_seed=b"seed", rules=rules_version)  # fmt: skip
    state = fold(created)
    return fold(rules.start(state), state)


def _result(state: State, table: int, scores: tuple[int, ...]) -> TableFinished:
    """Table ``table`` of the current round as the round job records it: Manila's outcome (seats ranked by
    score, seat order among equals) made into a result by ``results.table_finished``."""
    current = state.current()
    assert current is not None
    seats = current.pairing.tables[table]
    order = tuple(sorted(range(len(seats)), key=lambda s: -scores[s]))
    outcome = Outcome(ranking=order, scores=scores, winners=order[:1])
    return table_finished(current.number, table, seats, outcome, "h", game="manila")


def _play_round(state: State, scores: dict[int, tuple[int, ...]] | None = None) -> State:
    current = state.current()
    assert current is not None
    tables = range(len(current.pairing.tables))
    finished = [_result(state, t, (scores or {}).get(t, (30 + t, 20, 10))) for t in tables]
    return fold(rules.record_tables(state, finished), state)


def _finished_event(state: State, scores: tuple[int, ...]) -> TournamentFinished:
    events = rules.record_tables(state, [_result(state, 0, scores)])
    last = events[-1]
    assert isinstance(last, TournamentFinished)
    return last


def test_a_tie_in_the_final_crowns_every_tied_player_and_the_standings_rank_them_equal() -> None:
    # Round 1's winners have different in-game scores, so every later tie-break would split the finalists.
    state = _play_round(_started(9), {0: (90, 20, 10), 1: (20, 70, 10), 2: (10, 20, 50)})
    final = state.current()
    assert final is not None and len(final.pairing.tables) == 1 and not final.pairing.byes
    seats = final.pairing.tables[0]
    finished = _finished_event(state, (114, 114, 80))
    assert sorted(finished.winners) == sorted(seats[:2])  # both tied players, not the first by seat
    state = fold(rules.record_tables(state, [_result(state, 0, (114, 114, 80))]), state)
    rows = {row.player: row for row in current_standings(state)}
    assert rows[seats[0]].rank == rows[seats[1]].rank == 1
    assert rows[seats[2]].rank == 3
    assert state.winners == finished.winners


def test_under_rules_2_the_same_final_crowned_one_player() -> None:
    """The behaviour a tournament created under rules 2 was decided by, and still verifies against."""
    state = _play_round(_started(9, 2), {0: (90, 20, 10), 1: (20, 70, 10), 2: (10, 20, 50)})
    final = state.current()
    assert final is not None
    finished = _finished_event(state, (114, 114, 80))
    assert finished.winners == final.pairing.tables[0][:1]


def _withdraw_two_winners_while_paused(rules_version: int) -> tuple[State, list[int]]:
    state = _started(9, rules_version)
    state = fold(rules.pause(state), state)
    # Recorded while paused (the round waits for resume to close); table 2's winner scored least of the
    # three, so under rules 2 the two withdrawn winners outrank him on in-game score.
    state = _play_round(state, {0: (50, 20, 10), 1: (40, 20, 10), 2: (30, 20, 10)})
    current = state.current()
    assert current is not None and current.complete() and not current.closed
    winners = []
    for table in (0, 1):
        result = current.results[table]
        assert result is not None
        winners.append(result.ranking[0])
        state = fold(rules.withdraw(state, result.ranking[0], "left"), state)
    return fold(rules.resume(state), state), winners


def test_withdrawn_table_winners_are_replaced_and_the_final_is_played() -> None:
    state, withdrawn = _withdraw_two_winners_while_paused(rules.RULES)
    assert state.status == "running" and len(state.rounds) == 2
    first, final = state.rounds
    going = set(final.pairing.seated())
    assert len(final.pairing.tables) == 1 and not final.pairing.byes and len(going) == 3
    assert not going & set(withdrawn)
    results = [r for r in first.results if r is not None]
    assert going == {results[0].ranking[1], results[1].ranking[1], results[2].ranking[0]}
    state = _play_round(state, {0: (40, 30, 20)})
    assert state.status == "finished" and state.winners == (final.pairing.tables[0][0],)
    rows = current_standings(state)
    still_in = [row.rank for row in rows if row.player not in withdrawn]
    assert all(row.rank > max(still_in) for row in rows if row.player in withdrawn)


def test_under_rules_2_the_withdrawals_ended_the_tournament_after_round_1() -> None:
    state, withdrawn = _withdraw_two_winners_while_paused(2)
    assert state.status == "finished" and len(state.rounds) == 1
    top = current_standings(state)[:2]
    assert {row.player for row in top} == set(withdrawn)  # the report's case, kept for rules 2


def test_an_elimination_ends_when_withdrawals_leave_too_few_for_a_table() -> None:
    state = _started(3)
    for player in (0, 1):
        state = fold(rules.withdraw(state, player), state)
    state = _play_round(state)
    assert state.status == "finished" and state.winners == (2,)


def test_a_finalist_withdrawn_during_the_final_ranks_below_the_others_and_wins_nothing() -> None:
    state = _play_round(_started(9))
    final = state.current()
    assert final is not None
    leaving = final.pairing.tables[0][0]
    state = fold(rules.withdraw(state, leaving), state)
    state = _play_round(state, {0: (99, 50, 40)})  # he finishes first at the table all the same
    rows = {row.player: row for row in current_standings(state)}
    others = [p for p in final.pairing.tables[0] if p != leaving]
    assert state.winners == (others[0],) and rows[others[0]].rank == 1
    assert rows[leaving].rank > rows[others[1]].rank
    assert all(rows[leaving].rank < row.rank for p, row in rows.items() if p not in final.pairing.tables[0])


def test_a_rules_2_state_read_as_rules_3_is_decided_otherwise() -> None:
    """The version is what tells the two apart: the same events under another number decide otherwise."""
    state = _play_round(_started(9, 2), {0: (90, 20, 10), 1: (20, 70, 10), 2: (10, 20, 50)})
    v2 = _finished_event(state, (114, 114, 80))
    v3 = _finished_event(replace(state, rules=3), (114, 114, 80))
    assert len(v2.winners) == 1 and len(v3.winners) == 2


def test_players_level_across_the_cut_all_go_on_and_share_their_progress() -> None:
    """Rules 3: two players level for first at a table of three, one going on: both go on (the game's
    order no longer picks one), and the two level for second elsewhere have the same progress."""
    state = _play_round(_started(9), {0: (50, 50, 10), 1: (40, 20, 20)})
    first = state.rounds[0]
    tied = first.pairing.tables[0][:2]
    level_second = set(first.pairing.tables[1][1:])
    assert set(tied) <= set(state.rounds[1].pairing.seated()) | set(state.rounds[1].pairing.byes)
    progress = rules.progress(state)
    assert len({progress[p] for p in level_second}) == 1
    while state.status != "finished":
        state = _play_round(state)
    final = state.rounds[-1]
    assert len(final.pairing.tables) == 1 and not final.pairing.byes
