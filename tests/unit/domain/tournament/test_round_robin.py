"""The round-robin scheduler for tables of three or more (issue 33.8): every pair meets as evenly as the
tables allow, the same schedule from the same seed, byes round the field in turn."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest

from domain.tournament.formats import round_robin_rounds
from domain.tournament.round_robin import schedule


def _meetings(rows, players: int) -> list[int]:
    met: Counter[tuple[int, int]] = Counter()
    for row in rows:
        for table in row:
            met.update(itertools.combinations(sorted(table), 2))
    return [met[pair] for pair in itertools.combinations(range(players), 2)]


@pytest.mark.parametrize(
    ("players", "size", "rounds"),
    [(9, 3, 4), (16, 4, 5), (25, 5, 6), (13, 4, 4)],
    ids=["9 at 3 (affine plane)", "16 at 4 (affine plane)", "25 at 5 (affine plane)", "13 at 4"],
)
def test_where_a_resolvable_design_exists_every_pair_meets_at_most_once(players, size, rounds) -> None:
    met = _meetings(schedule(players, size, 3, 5, rounds, b"seed"), players)
    assert max(met) == 1
    seats = sum(
        len(t) * (len(t) - 1) // 2 for row in schedule(players, size, 3, 5, rounds, b"seed") for t in row
    )
    assert met.count(1) == seats  # no meeting wasted on a repeat


@pytest.mark.parametrize("seed", [b"a", b"b", b"c"])
def test_eight_at_tables_of_four_over_three_rounds_cover_all_28_pairs(seed: bytes) -> None:
    assert min(_meetings(schedule(8, 4, 3, 5, 3, seed), 8)) == 1


@pytest.mark.parametrize(("players", "size"), [(10, 4), (12, 4), (15, 3), (20, 4), (11, 5), (7, 3)])
def test_the_natural_length_leaves_few_pairs_apart(players: int, size: int) -> None:
    """Where no design is known the search keeps what it found: pairs apart beyond those the meetings
    cannot reach stay under a sixth of all pairs, and no pair meets far more often than even."""
    rows = schedule(players, size, 3, 5, round_robin_rounds(players, size), b"seed")
    met = _meetings(rows, players)
    pairs, slots = len(met), sum(met)
    assert met.count(0) <= max(0, pairs - slots) + pairs // 6
    assert max(met) <= slots // pairs + 3


def test_the_same_seed_makes_the_same_schedule_and_another_seed_another() -> None:
    schedule.cache_clear()
    first = schedule(12, 4, 3, 5, 4, b"one")
    schedule.cache_clear()
    assert schedule(12, 4, 3, 5, 4, b"one") == first
    assert schedule(12, 4, 3, 5, 4, b"two") != first


def test_byes_go_round_the_field() -> None:
    """7 players at tables of exactly 3 (no smaller table): one bye a round, nobody a second before all had one."""
    rows = schedule(7, 3, 3, 3, 7, b"seed")
    sat_out = [next(p for p in range(7) if all(p not in t for t in row)) for row in rows]
    assert sorted(sat_out) == list(range(7))
