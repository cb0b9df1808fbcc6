"""Every position of one random game, for the tests that hold a rule to a reference on each of them."""

from __future__ import annotations

from typing import Any

from domain.engine import Bot, Game, Rng, decide_at


def positions(game: Game[Any, Any, Any, Any], seed: int, seats: int, options: Any, bot: Bot, uniform: bool,
              limit: int | None = None) -> list[Any]:  # fmt: skip
    """The game from its start to its end (or ``limit`` commands): ``bot`` plays, or with ``uniform`` a player
    choosing uniformly among all its legal commands."""
    state, events = game.start(seats, options, f"listing-{seed}".encode())
    rng = Rng(f"bots-{seed}".encode())
    out = [state]
    played = 0
    while game.outcome(state) is None and (limit is None or played < limit):
        seat = min(game.to_act(state))
        command = rng.choice(game.legal_commands(state, seat)) if uniform else bot(state, seat, rng)
        new = decide_at(game, state, seat, command, f"listing-{seed}".encode(), len(events))
        state = game.fold(new, state)
        events += new
        out.append(state)
        played += 1
    return out
