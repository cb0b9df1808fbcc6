"""Issue 45 made East India Companies' ``legal_commands`` cheaper (placements appended to one list with
each space's lookups done once, share sales cached, a load's prices summed once, a sending's zones priced
once): on every position of many random games, for every seat, it lists exactly what the reference
(``reference_legal``, the listing before) lists, in the same order."""

from __future__ import annotations

from msgspec.structs import replace

from domain.eic import GAME
from domain.eic.bots import random_bot
from domain.eic.rules import legal_commands
from domain.eic.state import State
from domain.engine import Rng
from tests.unit.domain.positions import positions

from .reference_legal import legal_commands as reference


def _positions(seed: int, uniform: bool) -> list[State]:
    """Every position of one game: random merchants, or a player choosing uniformly among all commands."""
    options = GAME.option_examples[seed // 3 % len(GAME.option_examples)]
    return positions(GAME, seed, 2 + seed % 3, options, random_bot, uniform)


def _variants(state: State, rng: Rng) -> list[State]:
    """The position, and with the acting player's money changed (what they may afford)."""
    if state.actor < 0:
        return [state]
    players = list(state.players)
    players[state.actor] = replace(players[state.actor], treasury=rng.randint(0, 40))
    return [state, replace(state, players=tuple(players))]


def test_the_listing_equals_the_reference_on_random_positions() -> None:
    rng = Rng(b"variants")
    checked = 0
    for seed in range(12):
        for position in _positions(seed, uniform=seed % 2 == 1):
            for state in _variants(position, rng):
                for seat in range(state.seats):
                    assert legal_commands(state, seat) == reference(state, seat)
                    checked += 1
    assert checked > 5_000
