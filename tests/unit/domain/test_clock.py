"""The default move of a timed-out seat: a pass where the rules allow one, never a loan it did not ask
for, and a table where every seat only ever times out still reaches its end (an absent person never
blocks a table)."""

from __future__ import annotations

import pytest

from domain import GAMES
from domain.clock import BORROWING, PASSES, default_move
from domain.engine import play_out


@pytest.mark.parametrize("key", sorted(GAMES))
def test_a_table_of_timeouts_plays_to_the_end(key: str) -> None:
    game = GAMES[key]
    for seats in range(game.min_seats, game.max_seats + 1):
        borrowed_by_choice: list[str] = []

        def silent(state, seat, rng, game=game, borrowed=borrowed_by_choice):
            command = default_move(game, state, seat)
            others = [c for c in game.legal_commands(state, seat) if type(c).__name__ not in BORROWING]
            if type(command).__name__ in BORROWING and others:
                borrowed.append(type(command).__name__)
            return command

        result = play_out(game, seats, {}, f"clock-{seats}".encode(), [silent] * seats, max_commands=20_000)
        assert game.outcome(result.state) is not None
        assert borrowed_by_choice == []  # borrowing only when the rules leave nothing else


def test_a_pass_is_preferred_where_the_rules_allow_one() -> None:
    game = GAMES["manila"]
    state, _ = game.start(3, {}, b"pass")
    (seat,) = game.to_act(state)
    legal = {type(c).__name__ for c in game.legal_commands(state, seat)}
    chosen = type(default_move(game, state, seat)).__name__
    assert (chosen in PASSES) == bool(legal & PASSES)
