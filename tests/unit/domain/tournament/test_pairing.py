"""Swiss pairing: every player seated once or given a bye, no avoidable repeat opponents (checked
against an exhaustive search on small fields), seat positions balanced, similar scores together, and
the same seed always gives the same round."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain import GAMES
from domain.engine import Rng
from domain.tournament.conflict_free import conflict_free_split
from domain.tournament.history import History, RoundPairing, repeat_pairs
from domain.tournament.pairing import pair_swiss
from domain.tournament.tables import plan_tables
from tests.support.deep import examples
from tests.unit.domain.tournament.helpers import fewest_repeats, random_results


@st.composite
def fields(draw: st.DrawFn, low: int = 3, high: int = 41) -> tuple[int, int, int, int, bytes]:
    """(players, table size, game's min seats, game's max seats, seed) for a game of the project."""
    game = GAMES[draw(st.sampled_from(sorted(GAMES)))]
    size = draw(st.integers(game.min_seats, game.max_seats))
    players = draw(st.integers(low, high))
    return players, size, game.min_seats, game.max_seats, draw(st.binary(min_size=1, max_size=8))


def _play(players: int, size: int, low: int, high: int, seed: bytes, rounds: int) -> list[RoundPairing]:
    rng = Rng(b"results" + seed)
    scores: dict[int, int] = {}
    played: list[RoundPairing] = []
    for _ in range(rounds):
        pairing = pair_swiss(
            list(range(players)), scores, played, size=size, min_seats=low, max_seats=high, seed=seed
        )
        played.append(pairing)
        random_results(pairing, scores, rng)
    return played


@settings(max_examples=60, deadline=None)
@given(fields(), st.integers(1, 5))
def test_every_player_is_seated_once_or_has_a_bye(
    field: tuple[int, int, int, int, bytes], rounds: int
) -> None:
    players, size, low, high, seed = field
    plan = plan_tables(players, size, low, high)
    for pairing in _play(players, size, low, high, seed, rounds):
        assert sorted(pairing.seated() + list(pairing.byes)) == list(range(players))
        assert sorted((len(t) for t in pairing.tables), reverse=True) == list(plan.sizes)
        assert len(pairing.byes) == plan.byes


@settings(max_examples=40, deadline=None)
@given(fields(low=4, high=10), st.integers(1, 4))
def test_no_avoidable_repeat_opponents(field: tuple[int, int, int, int, bytes], rounds: int) -> None:
    """Exhaustive search over every split of the seated players finds no split with fewer repeats."""
    players, size, low, high, seed = field
    played = _play(players, size, low, high, seed, rounds)
    history = History(played[:-1])
    last = played[-1]
    sizes = [len(t) for t in last.tables]
    assert repeat_pairs(last.tables, history) == fewest_repeats(sorted(last.seated()), sizes, history)


@settings(max_examples=20, deadline=None)
@given(fields(low=60, high=120), st.integers(2, 3))
def test_large_fields_have_no_repeats_in_early_rounds(
    field: tuple[int, int, int, int, bytes], rounds: int
) -> None:
    players, size, low, high, seed = field
    played = _play(players, size, low, high, seed, rounds)
    for number in range(1, len(played)):
        assert repeat_pairs(played[number].tables, History(played[:number])) == 0


@settings(examples(quick=10, deep=40))
@given(fields())
def test_seat_positions_balance_over_the_rounds(field: tuple[int, int, int, int, bytes]) -> None:
    """Over 2 x size rounds, nobody starts (seat 0) more than once above an even share of the starts.
    10 fields in ``make test``, 40 with ``HARBORMASTER_DEEP_PROPERTIES=1`` (``make chaos``)."""
    players, size, low, high, seed = field
    played = _play(players, size, low, high, seed, 2 * size)
    history = History(played)
    fair_share = sum(len(p.tables) for p in played) / players
    for player in range(players):
        assert history.seat_count(player, 0) <= math.ceil(fair_share) + 1


def test_similar_scores_sit_together() -> None:
    """Round 2 of 64 players at tables of 4: the round-1 winners (6 points) fill the top tables."""
    played = _play(64, 4, 3, 5, b"similar", 1)
    scores: dict[int, int] = {}
    random_results(played[0], scores, Rng(b"results" + b"similar"))
    second = pair_swiss(list(range(64)), scores, played, size=4, min_seats=3, max_seats=5, seed=b"similar")
    table_scores = [sorted((scores[p] for p in table), reverse=True) for table in second.tables]
    assert all(s == [6, 6, 6, 6] for s in table_scores[:4])
    assert all(s == [1, 1, 1, 1] for s in table_scores[-4:])
    assert repeat_pairs(second.tables, History(played)) == 0


def test_the_same_seed_gives_the_same_rounds_and_another_seed_does_not() -> None:
    assert _play(23, 4, 3, 5, b"a", 4) == _play(23, 4, 3, 5, b"a", 4)
    assert _play(23, 4, 3, 5, b"a", 4) != _play(23, 4, 3, 5, b"b", 4)


def test_byes_go_to_the_lowest_placed_who_had_fewest() -> None:
    # 11 players at Manila tables of 3: two byes a round; nobody gets a second bye before all had one.
    played = _play(11, 3, 3, 5, b"byes", 5)
    history = History(played)
    assert sum(history.byes.values()) == 10
    assert max(history.byes.values()) == 1


@pytest.mark.parametrize(
    ("key", "size"),
    [(k, s) for k in sorted(GAMES) for s in range(GAMES[k].min_seats, GAMES[k].max_seats + 1)],
)
def test_forty_players_over_five_rounds_meet_nobody_twice(key: str, size: int) -> None:
    """40 players, 5 Swiss rounds, several seeds, every table size of every game: no repeated pair. At
    tables of 5 (20 of 39 opponents met) the repair and tabu search alone left one or two; the search for a
    repeat-free split (``conflict_free``) removes them."""
    game = GAMES[key]
    for seed in (b"a", b"b", b"c", b"d"):
        played = _play(40, size, game.min_seats, game.max_seats, seed, 5)
        repeats = sum(repeat_pairs(p.tables, History(played[:n])) for n, p in enumerate(played))
        assert repeats == 0, (seed, repeats)


def test_sixty_players_at_tables_of_five_meet_nobody_twice_in_eight_rounds() -> None:
    for seed in (b"a", b"b", b"c", b"d"):
        played = _play(60, 5, 2, 5, seed, 8)
        assert [repeat_pairs(p.tables, History(played[:n])) for n, p in enumerate(played)] == [0] * 8, seed


def test_a_repeat_free_split_is_found_where_one_exists_and_none_claimed_where_none_does() -> None:
    # 0-1, 2-3 and 0-2 met: tables of two {0,3} {1,2} are the only split without a repeat.
    met = History([RoundPairing(tables=((0, 1), (2, 3))), RoundPairing(tables=((0, 2),), byes=(1, 3))])
    assert conflict_free_split([0, 1, 2, 3], [2, 2], met) == [[0, 3], [1, 2]]
    # 0 has met everyone: no split of four into two tables leaves it with a fresh opponent.
    everyone = History([RoundPairing(tables=((0, 1, 2, 3),))])
    assert conflict_free_split([0, 1, 2, 3], [2, 2], everyone) is None
