"""Bot policies over ``legal_commands``: a random bot and a greedy bot (pure; rng passed in)."""

from __future__ import annotations

from domain.engine import Bot, Rng
from domain.manila import commands as cmd
from domain.manila.rules import legal_commands
from domain.manila.state import State


def random_bot(state: State, seat: int, rng: Rng) -> cmd.ManilaCommand:
    """Any legal command, uniformly."""
    return rng.choice(legal_commands(state, seat))


def greedy_bot(state: State, seat: int, rng: Rng) -> cmd.ManilaCommand:
    """Placeholder until the greedy policy below is written."""
    return rng.choice(legal_commands(state, seat))


BOTS: dict[str, Bot] = {"random": random_bot, "greedy": greedy_bot}
