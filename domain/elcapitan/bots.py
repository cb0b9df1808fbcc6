"""Bots for El Capitán: a random one and a greedy one, both choosing among ``legal_commands``."""

from __future__ import annotations

from domain.elcapitan import commands as cmd
from domain.elcapitan.rules import legal_commands
from domain.elcapitan.state import State
from domain.engine import Bot, Rng


def random_bot(state: State, seat: int, rng: Rng) -> cmd.ElCapitanCommand:
    """Any legal command, uniformly."""
    return rng.choice(legal_commands(state, seat))


BOTS: dict[str, Bot] = {"random": random_bot}
