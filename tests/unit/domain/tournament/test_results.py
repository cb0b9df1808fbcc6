"""A table's result from its game's outcome: places shared as each rulebook says (issue 33.7)."""

from __future__ import annotations

from domain.engine import Outcome
from domain.tournament.points import PointsByPlace
from domain.tournament.results import table_finished
from domain.tournament.standings import TableResult, standings

# Seat 2 and seat 3 finish level on 30; seat 0 first on 50, seat 1 second on 40.
LEVEL_LAST = Outcome(ranking=(0, 1, 2, 3), scores=(50, 40, 30, 30), winners=(0,))
PLAYERS = (7, 5, 3, 1)  # seat -> player


def test_manila_and_el_capitan_share_a_place_east_india_companies_does_not() -> None:
    for game in ("manila", "elcapitan"):
        shared = table_finished(2, 0, PLAYERS, LEVEL_LAST, "h", game=game)
        assert shared.places == (0, 1, 2, 2) and shared.ranking == (7, 5, 3, 1)
    ordered = table_finished(2, 0, PLAYERS, LEVEL_LAST, "h", game="eic")
    assert ordered.places == (0, 1, 2, 3)


def test_tied_players_score_the_same_points() -> None:
    finished = table_finished(1, 0, PLAYERS, LEVEL_LAST, "h", game="manila")
    result = TableResult(ranking=finished.ranking, scores=finished.scores, winners=finished.winners,
                         places=finished.places)  # fmt: skip
    rows = {
        r.player: r for r in standings(PLAYERS, [result], [], points=PointsByPlace(), tie_breaks=("points",))
    }
    assert [rows[p].values[0] for p in PLAYERS] == [6, 5, 3, 3]
    assert rows[3].rank == rows[1].rank == 3


def test_a_shared_win_is_every_player_level_with_the_best() -> None:
    level_top = Outcome(ranking=(1, 0, 2), scores=(40, 40, 10), winners=(1, 0))
    finished = table_finished(1, 0, (4, 5, 6), level_top, "h", game="elcapitan")
    assert finished.places == (0, 0, 2) and set(finished.winners) == {4, 5}


def test_a_forfeited_player_never_shares_a_place_with_one_who_played() -> None:
    # Seat 1 timed out: it goes below the others even though it is level with seat 2 in score.
    outcome = Outcome(ranking=(0, 1, 2), scores=(50, 30, 30), winners=(0,))
    finished = table_finished(1, 0, (4, 5, 6), outcome, "h", game="manila", forfeited_seats=(1,))
    assert finished.ranking == (4, 6, 5) and finished.places == (0, 1, 2) and finished.forfeits == (5,)
