"""Table plans: the organiser's size, smaller tables absorb a remainder where the game allows, byes only
where not, for 3–41 players and every seat count of every game."""

from __future__ import annotations

import itertools

import pytest

from domain import GAMES
from domain.tournament.tables import plan_tables

CASES = [(key, size) for key, game in GAMES.items() for size in range(game.min_seats, game.max_seats + 1)]


def _fewest_byes(players: int, allowed: set[int]) -> int:
    """Brute force: the fewest players left out by any mix of allowed table sizes."""
    reachable = {0}
    for total in range(1, players + 1):
        if any(total - s in reachable for s in allowed if total >= s):
            reachable.add(total)
    return players - max(reachable)


@pytest.mark.parametrize(("key", "size"), CASES)
def test_sizes_and_byes_for_3_to_41_players(key: str, size: int) -> None:
    game = GAMES[key]
    allowed = {s for s in (size, size - 1) if s >= game.min_seats}
    for players in range(3, 42):
        plan = plan_tables(players, size, game.min_seats, game.max_seats)
        assert sum(plan.sizes) + plan.byes == players
        assert set(plan.sizes) <= allowed
        assert plan.byes == _fewest_byes(players, allowed), (players, plan)
        assert list(plan.sizes) == sorted(plan.sizes, reverse=True)
        # Among plans with these byes, the fewest smaller tables.
        smaller = plan.sizes.count(size - 1)
        assert smaller < size or size - 1 not in allowed


def test_remainder_goes_to_smaller_tables_not_byes() -> None:
    manila = GAMES["manila"]
    assert plan_tables(10, 4, manila.min_seats, manila.max_seats).sizes == (4, 3, 3)
    assert plan_tables(10, 4, manila.min_seats, manila.max_seats).byes == 0
    # Five players at tables of 4 in Manila: no 4+1, no 3+2 (2 is below Manila's 3 seats): one bye.
    assert plan_tables(5, 4, manila.min_seats, manila.max_seats).byes == 1
    # Tables of 3 in Manila cannot shrink to 2: a remainder is byes.
    assert plan_tables(11, 3, manila.min_seats, manila.max_seats).byes == 2
    # El Capitán plays from 2: 11 players at tables of 3 are 3+3+3+2.
    capitan = GAMES["elcapitan"]
    assert plan_tables(11, 3, capitan.min_seats, capitan.max_seats).sizes == (3, 3, 3, 2)


def test_a_size_outside_the_game_is_refused() -> None:
    with pytest.raises(ValueError, match="outside"):
        plan_tables(12, 6, 3, 5)


def test_every_combination_is_checked() -> None:
    # The brute force above covers every plan; make sure the parametrization saw every game.
    assert {key for key, _ in CASES} == set(GAMES)
    assert len(list(itertools.chain(CASES))) == sum(g.max_seats - g.min_seats + 1 for g in GAMES.values())
