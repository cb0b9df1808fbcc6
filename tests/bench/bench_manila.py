"""Manila figures: random-bot games per second on one core, events per game, greedy win rate."""

from __future__ import annotations

import time

from domain.engine import play_out
from domain.manila import GAME
from domain.manila.bots import greedy_bot, random_bot

GAMES = 300
GREEDY_GAMES = 200


def _random_games() -> None:
    events = 0
    started = time.perf_counter()
    for i in range(GAMES):
        seats = 3 + i % 3
        options = GAME.option_examples[i % len(GAME.option_examples)]
        played = play_out(GAME, seats, options, f"bench-{i}".encode(), [random_bot] * seats)
        events += len(played.events)
    elapsed = time.perf_counter() - started
    print(f"random-bot games: {GAMES} (3-5 players, all option examples) in {elapsed:.2f} s")
    print(f"games per second (one core): {GAMES / elapsed:.1f}")
    print(f"mean events per game: {events / GAMES:.1f}")


def _greedy_rate() -> None:
    wins = 0
    started = time.perf_counter()
    for i in range(GREEDY_GAMES):
        seat = i % 4
        bots = [random_bot] * 4
        bots[seat] = greedy_bot
        played = play_out(GAME, 4, {}, f"greedy-bench-{i}".encode(), bots)
        outcome = GAME.outcome(played.state)
        wins += outcome is not None and seat in outcome.winners
    elapsed = time.perf_counter() - started
    rate = 100 * wins / GREEDY_GAMES
    print(f"greedy vs 3 random, 4 players: won {wins}/{GREEDY_GAMES} ({rate:.1f} %) in {elapsed:.1f} s")


def main() -> None:
    """Print the figures (never asserts on time)."""
    _random_games()
    _greedy_rate()


if __name__ == "__main__":
    main()
