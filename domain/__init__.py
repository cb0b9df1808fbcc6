"""The rules of the three games, pure and deterministic (docs/design-brief.md, "Layers").

``GAMES`` maps a game's key to its ``Game`` record; everything outside ``domain/`` drives a game only
through it.
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import Any

from domain.engine import Game, Outcome, Rng, RuleViolation, Seat, decide_at, rng_for, seed_commitment
from domain.seat_control import with_seat_control
from domain.seat_standing import STANDINGS
from domain.take_back import with_take_back

GAME_KEYS = ("elcapitan", "manila", "eic")


def _load_games() -> dict[str, Game[Any, Any, Any, Any]]:
    games: dict[str, Game[Any, Any, Any, Any]] = {}
    for key in GAME_KEYS:
        spec = importlib.util.find_spec(f"domain.{key}")
        if spec is not None and spec.origin is not None:  # a package with its __init__.py
            # every game with the seat commands and events (resign, a bot's stand-in, a vote to end): the
            # outermost layer, so that no other (a take-back's) ever sees them, and a seat event ends its window;
            # inside it, taking back one's moves of the turn (domain/take_back.py)
            module = importlib.import_module(f"domain.{key}")
            games[key] = with_seat_control(with_take_back(module.GAME, module.TAKE_BACK), STANDINGS[key])
    return games


GAMES: dict[str, Game[Any, Any, Any, Any]] = _load_games()


def games_with_plugins(plugins: tuple[str, ...] = ()) -> dict[str, Game[Any, Any, Any, Any]]:
    """``GAMES`` plus extra games named ``module:ATTRIBUTE`` (tests add their minimal game this way)."""
    games = dict(GAMES)
    for spec in plugins:
        module_name, _, attribute = spec.partition(":")
        game = getattr(importlib.import_module(module_name), attribute or "GAME")
        games[game.key] = game
    return games


__all__ = [
    "GAMES",
    "Game",
    "Outcome",
    "Rng",
    "RuleViolation",
    "Seat",
    "decide_at",
    "games_with_plugins",
    "rng_for",
    "seed_commitment",
]
