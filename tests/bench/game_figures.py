"""The figures every game reports: random-bot games per second on one core, events per game, and the
greedy bot's rate of wins against three random bots in 4-player games."""

from __future__ import annotations

import importlib
import time
from typing import Any

from domain.engine import Game, play_out


def random_games(game: Game[Any, Any, Any, Any], bots: Any, games: int = 300) -> None:
    """Every seat count and option example in turn, setup to outcome (decide + evolve + legal_commands)."""
    seat_counts = list(range(game.min_seats, game.max_seats + 1))
    events = 0
    started = time.perf_counter()
    for i in range(games):
        seats = seat_counts[i % len(seat_counts)]
        options = game.option_examples[i % len(game.option_examples)]
        events += len(play_out(game, seats, options, f"bench-{i}".encode(), [bots.random_bot] * seats).events)
    elapsed = time.perf_counter() - started
    print(
        f"{game.key}: {games} random-bot games ({seat_counts[0]}-{seat_counts[-1]} players, all option examples)"
    )
    print(f"{game.key}: {games / elapsed:.1f} games per second on one core")
    print(f"{game.key}: {events / games:.1f} events per game on average")


def greedy_rate(game: Game[Any, Any, Any, Any], bots: Any, games: int = 200) -> None:
    """The greedy bot in each seat in turn against three random bots."""
    wins = shared = 0
    for i in range(games):
        seat = i % 4
        seat_bots = [bots.random_bot] * 4
        seat_bots[seat] = bots.greedy_bot
        outcome = game.outcome(play_out(game, 4, {}, f"greedy-{i}".encode(), seat_bots).state)
        assert outcome is not None
        wins += seat in outcome.winners
        shared += seat in outcome.winners and len(outcome.winners) > 1
    print(f"{game.key}: greedy bot won {wins}/{games} 4-player games against three random bots "
          f"({wins / games:.0%}; {shared} of them shared)")  # fmt: skip


def report(key: str) -> None:
    """Print a game's figures (never asserts on time)."""
    game = importlib.import_module(f"domain.{key}").GAME
    bots = importlib.import_module(f"domain.{key}.bots")
    random_games(game, bots)
    greedy_rate(game, bots)
