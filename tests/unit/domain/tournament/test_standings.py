"""Standings: points by place, byes, and each stated tie-break on an example worked by hand."""

from __future__ import annotations

import pytest

from domain.tournament.points import PointsByPlace, table_points
from domain.tournament.standings import TableResult, standings

POINTS = PointsByPlace()


def test_points_by_place_default_and_shared_first() -> None:
    assert table_points(POINTS, (4, 5, 6, 7), ()) == {4: 6, 5: 5, 6: 3, 7: 1}
    assert table_points(POINTS, (1, 2, 3), ()) == {1: 6, 2: 4, 3: 1}
    assert table_points(POINTS, (1, 2, 3), (0, 0, 2)) == {1: 6, 2: 6, 3: 1}
    assert table_points(POINTS, (4, 5, 6, 7), (0, 1, 2, 2)) == {4: 6, 5: 5, 6: 3, 7: 3}  # last two tied
    custom = PointsByPlace(by_size={"3": (3, 1, 0)}, bye=2)
    assert table_points(custom, (9, 8, 7), ()) == {9: 3, 8: 1, 7: 0}
    with pytest.raises(ValueError, match="no points"):
        table_points(custom, (1, 2, 3, 4), ())


# Round 1: table A = 0 > 1 > 2 (3 seats), table B = 3 > 4 > 5; round 2: 0 > 3 > 4, 1 > 5 > 2.
RESULTS = [
    TableResult(ranking=(0, 1, 2), scores=(40, 30, 20), winners=(0,)),
    TableResult(ranking=(3, 4, 5), scores=(50, 30, 10), winners=(3,)),
    TableResult(ranking=(0, 3, 4), scores=(35, 34, 33), winners=(0,)),
    TableResult(ranking=(1, 5, 2), scores=(25, 22, 21), winners=(1,)),
]
# Points (6/4/1): 0: 12, 1: 4+6=10, 2: 1+1=2, 3: 6+4=10, 4: 4+1=5, 5: 1+4=5.


def test_points_then_opponents_points_then_game_score() -> None:
    rows = standings(range(6), RESULTS, (), points=POINTS)
    by_player = {r.player: r for r in rows}
    assert [r.player for r in rows] == [0, 3, 1, 4, 5, 2]
    # Opponents' points: 1 met 0, 2 (round 1) and 5, 2 (round 2): 12+2+5+2 = 21;
    # 3 met 4, 5 and 0, 4: 5+5+12+5 = 27, so 3 is ahead of 1 on the first tie-break.
    assert by_player[1].values == (10, 21, 55)
    assert by_player[3].values == (10, 27, 84)
    # 4 and 5 are equal on points (5); opponents: 4 met 3, 5, 0, 3 = 10+5+12+10 = 37;
    # 5 met 3, 4, 1, 2 = 10+5+10+2 = 27.
    assert by_player[4].values[:2] == (5, 37)
    assert by_player[5].values[:2] == (5, 27)
    assert [r.rank for r in rows] == [1, 2, 3, 4, 5, 6]


def test_game_score_first_when_the_organiser_says_so_and_shared_ranks() -> None:
    rows = standings(range(6), RESULTS, (), points=POINTS, tie_breaks=("game_score",))
    assert [r.player for r in rows][:2] == [3, 0]  # 84 before 75
    equal = standings(range(2), [TableResult(ranking=(0, 1), scores=(5, 5), winners=(0, 1))], (),
                      points=POINTS, tie_breaks=("points", "game_score"))  # fmt: skip
    assert [r.rank for r in equal] == [1, 1]


def test_a_bye_scores_the_organisers_points() -> None:
    rows = standings(range(4), [RESULTS[0]], (3,), points=PointsByPlace(bye=4), tie_breaks=("points", "wins"))
    assert {r.player: r.values for r in rows}[3] == (4, 0)
    assert {r.player: r.byes for r in rows}[3] == 1


def test_an_unknown_tie_break_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown tie-break"):
        standings(range(3), [], (), points=POINTS, tie_breaks=("elo",))
