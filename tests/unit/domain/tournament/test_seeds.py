"""Seeding (issue 35): the seeds recorded in ``TournamentStarted`` deal a Swiss first round strongest apart,
break ties of points in later rounds, and order an elimination's first round; no seeds, no change."""

from __future__ import annotations

import msgspec
import pytest

from domain import GAMES
from domain.engine import Rng, RuleViolation
from domain.tournament import Entrant, State, TournamentSettings, default_tie_breaks, fold, rules
from domain.tournament.data import Format
from domain.tournament.events import TournamentStarted
from domain.tournament.pairing import pair_swiss, score_order
from domain.tournament.seeds import by_seed, deal

SEEDS = (1.0, 30.5, -2.0, 12.0, 7.5, 25.0, 0.0, 18.0)
"""Eight entrants; strongest first they are 1, 5, 7, 3, 4, 6, 0, 2."""
STRONGEST_FIRST = [1, 5, 7, 3, 4, 6, 0, 2]


def _created(fmt: Format, players: int = 8) -> State:
    spec = GAMES["manila"]
    settings = TournamentSettings(game="manila", format=fmt, table_size=4, rounds=3 if fmt == "swiss" else 0,
                                  advance=2, tie_breaks=default_tie_breaks(fmt))  # fmt: skip
    entrants = [Entrant(name=f"p{i}", bot="random") for i in range(players)]
    created = rules.create("t", settings, entrants, min_seats=spec.min_seats, max_seats=spec.max_seats,
                           pairing_seed=b"seed")  # fmt: skip
    return fold(created)


def test_a_seeded_swiss_first_round_keeps_the_strongest_apart() -> None:
    state = fold(rules.start(_created("swiss"), SEEDS), _created("swiss"))
    assert state.seeds == SEEDS
    tables = [set(t) for t in state.rounds[0].pairing.tables]
    # dealt like cards in snake order: seeds 1st, 4th, 5th and 8th at one table, 2nd, 3rd, 6th, 7th at the other
    first, second = STRONGEST_FIRST[0::4] + STRONGEST_FIRST[3::4], STRONGEST_FIRST[1:3] + STRONGEST_FIRST[5:7]
    assert sorted(tables, key=lambda t: 1 not in t) == [set(first), set(second)]


def test_deal_is_a_snake() -> None:
    assert deal([0, 1, 2, 3, 4, 5, 6, 7, 8], (3, 3, 3)) == [[0, 5, 6], [1, 4, 7], [2, 3, 8]]
    assert deal([0, 1, 2, 3, 4, 5, 6], (4, 3)) == [[0, 3, 4, 6], [1, 2, 5]]


def test_later_rounds_order_equal_points_by_seed() -> None:
    scores = {p: 6.0 if p in (0, 2) else 1.0 for p in range(8)}
    order = score_order(list(range(8)), scores, Rng(b"r"), SEEDS)
    assert order == [0, 2, 1, 5, 7, 3, 4, 6]  # points first, then seed: 0 (1.0) above 2 (-2.0)


def test_an_unseeded_tournament_pairs_and_encodes_as_before() -> None:
    state = _created("swiss")
    started = rules.start(state)
    assert msgspec.json.encode(started[0]) == b'{"type":"TournamentStarted"}'  # old exports read the same
    first = fold(started, state).rounds[0].pairing
    assert first == pair_swiss(list(range(8)), {}, [], size=4, min_seats=3, max_seats=5, seed=b"seed")


def test_seeded_elimination_deals_its_first_round_by_seed() -> None:
    state = _created("elimination", players=10)
    seeds = (*SEEDS, 40.0, -5.0)  # entrant 8 is strongest, 9 weakest
    first = fold(rules.start(state, seeds), state).rounds[0].pairing
    unseeded = fold(rules.start(state), state).rounds[0].pairing
    ranked = by_seed(range(10), seeds)
    assert ranked[0] == 8 and ranked[-1] == 9
    assert first != unseeded and not first.byes  # 10 players: tables of 4, 3 and 3
    assert [set(t) for t in first.tables] == [set(t) for t in deal(ranked, [4, 3, 3])]


@pytest.mark.parametrize("seeds", [(1.0, 2.0), (float("nan"),) * 8])
def test_seeds_are_one_finite_number_per_entrant(seeds: tuple[float, ...]) -> None:
    with pytest.raises(RuleViolation) as refused:
        rules.start(_created("swiss"), seeds)
    assert refused.value.code == "tournament.seeds"


def test_started_seeds_survive_the_round_trip() -> None:
    started = TournamentStarted(seeds=SEEDS)
    assert msgspec.json.decode(msgspec.json.encode(started), type=TournamentStarted) == started
