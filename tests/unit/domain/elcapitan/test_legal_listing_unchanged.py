"""Issue 45 made ``legal_commands`` cheaper (one listing of the turn's steps, cheap tests before each
validator): on every position of many random games, under every rules version, it lists exactly what the
unfiltered reference (``reference_legal``) lists, in the same order."""

from __future__ import annotations

from msgspec.structs import replace

from domain.elcapitan import GAME
from domain.elcapitan.bots import random_bot
from domain.elcapitan.state import State
from domain.engine import Rng
from tests.unit.domain.positions import positions

from .reference_legal import legal_commands as reference


def _positions(seed: int, uniform: bool) -> list[State]:
    """Every position of one game: random merchants, or a player choosing uniformly among all commands
    (who buys, sails and borrows where the merchant would not)."""
    options = GAME.option_examples[seed % len(GAME.option_examples)]
    return positions(GAME, seed, 2 + seed % 4, options, random_bot, uniform, limit=900)


def _variants(state: State, rng: Rng) -> list[State]:
    """The position under each rules version, and with its active player's money changed."""
    p = state.players[state.current]
    richer = (
        *state.players[: state.current],
        replace(p, money=rng.randint(0, 40)),
        *state.players[state.current + 1 :],
    )
    return [replace(state, rules=rules) for rules in (1, 2, 3)] + [replace(state, players=richer)]


def test_the_listing_equals_the_reference_on_random_positions() -> None:
    rng = Rng(b"variants")
    checked = 0
    for seed in range(24):
        for position in _positions(seed, uniform=seed % 2 == 1):
            for state in _variants(position, rng):
                for seat in range(state.seats) if state.stage == "turn" else ():  # loans: unchanged code
                    assert GAME.legal_commands(state, seat) == reference(state, seat, GAME.to_act(state))
                    checked += 1
    assert checked > 50_000
