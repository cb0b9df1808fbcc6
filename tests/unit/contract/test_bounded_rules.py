"""No game can stall the server (issue 32): ``legal_commands`` stays within ``MAX_LEGAL_COMMANDS`` for every
seat in every state that hoarding and random players reach, over many seeds and every option set, and in
the largest states built by hand. The sizes are asserted; the times only print (``make bench``,
``tests/bench/bench_rules_bound.py``): a timed assertion would fail on a slow machine, not on slow rules.

In ``make test`` one game per game, seat count, option set and mix, its seed taking turns over the three;
with ``HARBORMASTER_DEEP_PROPERTIES=1`` (``make chaos``, ``tests/support/deep.py``) all three seeds.
"""

from __future__ import annotations

from typing import Any

import pytest
from msgspec.structs import replace

from domain import GAMES
from domain.engine import MAX_LEGAL_COMMANDS
from tests.support.adversaries import MIXES, Figures, explore, option_sets
from tests.support.deep import DEEP

SEEDS = 3
"""Games per game, seat count, option set and mix of players (El Capitán: 4 × 8 × 4 × 3 = 384 games), in
the deep run; one of them in ``make test`` (a third of the CPU)."""


def _seeds(turn: int) -> range:
    """The seeds one case plays: all deep, else the one whose turn it is (each seed is played somewhere)."""
    return range(SEEDS) if DEEP else range(turn % SEEDS, turn % SEEDS + 1)


def _cases() -> list[Any]:
    return [
        pytest.param(key, seats, id=f"{key}-{seats}p")
        for key, game in sorted(GAMES.items())
        for seats in range(game.min_seats, game.max_seats + 1)
    ]


@pytest.mark.parametrize(("key", "seats"), _cases())
def test_hoarders_and_random_players_never_see_more_than_the_bound(key, seats) -> None:
    figures = Figures()
    for n, options in enumerate(option_sets(key)):
        for m, mix in enumerate(MIXES):
            for i in _seeds(n + m):
                figures.merge(
                    explore(key, seats, options, f"bound-{key}-{i}".encode(), mix, max_commands=1200)
                )
    assert figures.states > 500
    assert figures.largest <= MAX_LEGAL_COMMANDS, figures.largest_where


def test_elcapitan_every_card_in_one_hand_and_the_pirate_owed() -> None:
    """The largest El Capitán list: 2 players (neutral colours), all expansions, all 54 sailing cards in one
    hand, the ship in Valencia with a build and a re-opening open, the free pirate move owed and money for
    every paid one: 157 sailings, 69 pirate moves."""
    from domain.elcapitan import GAME, data
    from domain.elcapitan.state import TurnState
    from tests.unit.domain.elcapitan.helpers import chain, dock, player, set_city, start

    every = tuple(c.id for c in (*data.DESTINATION_CARDS, *data.INTERCONNECTION_CARDS))
    state = start(2, data.EXPANSIONS)
    empty = replace(state.destinations, draw=(), display=(), discard=())
    state = replace(state, destinations=empty, interconnections=empty)
    state = chain(dock(player(state, 0, hand=every, money=1000), 0, "valencia"), "valencia", {1: 0, 2: 1})
    state = set_city(state, "valencia", closed=(0, 2))
    state = replace(state, round=2, turn=TurnState(sailed=True, pirate_due=True))
    legal = GAME.legal_commands(state, 0)
    assert 200 < len(legal) <= MAX_LEGAL_COMMANDS
    assert sum(type(c).__name__ == "MovePirate" for c in legal) == 69


def test_eic_three_envoys_every_ship_and_every_share() -> None:
    """The largest East India Companies list: three envoys that reach both ship spaces, a full harbour of
    four docks (every bought ship with every ship to give up), money, shares of every company to sell."""
    from domain.eic import GAME
    from tests.unit.domain.eic.helpers import player, ship, start

    state = replace(start(4, {"pledging": True}), epoch=4)
    me = state.actor
    kinds = ("G1", "G2", "SH1", "SH2")
    state = player(
        state,
        me,
        envoys=("P:Shipowner", "P:Investor", "C:Governor"),
        ships=tuple(ship(me, k) for k in kinds),
        extensions=2,
        used_tiles=kinds,
        treasury=500,
        shares=(6,) * state.companies,
    )
    legal = GAME.legal_commands(state, me)
    assert 150 < len(legal) <= MAX_LEGAL_COMMANDS


def test_manila_a_rich_bidder_is_offered_200_bids() -> None:
    from domain.manila import GAME
    from tests.unit.domain.manila.helpers import start

    state = start(4)
    state = replace(state, players=(replace(state.players[0], cash=10_000), *state.players[1:]))
    assert len(GAME.legal_commands(state, 0)) <= MAX_LEGAL_COMMANDS
