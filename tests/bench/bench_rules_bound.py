"""Issue 32's bound, measured: per game, the largest ``legal_commands`` list and the slowest ``legal_commands``
and ``decide`` calls in every state that hoarding and random players reach (``tests/support/adversaries.py``),
over every seat count, option set and mix of players; then the El Capitán hand that took 58 s before.

``tests/unit/contract/test_bounded_rules.py`` asserts the sizes; the times are printed here only.
"""

from __future__ import annotations

import time

from msgspec.structs import replace

from domain import GAMES
from domain.engine import MAX_LEGAL_COMMANDS
from tests.support.adversaries import MIXES, Figures, explore, option_sets

SEEDS = 3


def _elcapitan_big_hand() -> None:
    """21 cards in one hand, the pirate far away: 3,346 commands in 58 s before issue 32."""
    from domain.elcapitan import GAME, data
    from tests.unit.domain.elcapitan.helpers import hand, pirate_at, start

    cards = (*(c.id for c in data.DESTINATION_CARDS), "I26", "I34", "I35")
    state = pirate_at(hand(start(3, data.EXPANSIONS), 0, *cards), "alexandria", 0)
    state = replace(state, players=(replace(state.players[0], money=200), *state.players[1:]))
    started = time.perf_counter()
    legal = GAME.legal_commands(state, 0)
    took = time.perf_counter() - started
    print(
        f"  El Capitán, 21 cards in hand (issue 32: 3,346 commands, 58 s): {len(legal)} commands, {took * 1e3:.2f} ms"
    )


def main() -> None:
    print(
        f"  bound: {MAX_LEGAL_COMMANDS} commands (domain/engine.py); mixes: {', '.join(MIXES)}; {SEEDS} seeds each"
    )
    for key, game in sorted(GAMES.items()):
        figures = Figures()
        games = 0
        started = time.perf_counter()
        for seats in range(game.min_seats, game.max_seats + 1):
            for options in option_sets(key):
                for mix in MIXES:
                    for i in range(SEEDS):
                        seed = f"bench-{key}-{i}".encode()
                        figures.merge(explore(key, seats, options, seed, mix, max_commands=1200, timed=True))
                        games += 1
        wall = time.perf_counter() - started
        print(f"  {game.title}: {games} games, {figures.states:,} states in {wall:.1f} s")
        print(f"    largest list: {figures.largest} commands ({figures.largest_where})")
        print(
            f"    slowest legal_commands: {figures.slowest_legal_s * 1e3:.2f} ms ({figures.slowest_legal_where})"
        )
        print(f"    slowest decide: {figures.slowest_decide_s * 1e3:.2f} ms ({figures.slowest_decide_where})")
    _elcapitan_big_hand()
