"""East India Companies figures: random-bot games per second on one core, events per game, greedy win rate."""

from __future__ import annotations

import time

from domain.eic import GAME
from domain.eic.bots import greedy_bot, random_bot
from domain.engine import play_out

GAMES = 300
GREEDY_GAMES = 200


def main() -> None:
    """Print the figures (never asserts a time)."""
    events = 0
    started = time.perf_counter()
    for i in range(GAMES):
        seats = 2 + i % 3
        played = play_out(
            GAME, seats, {} if i % 2 else {"pledging": True}, f"bench-{i}".encode(), [random_bot] * seats
        )
        events += len(played.events)
    elapsed = time.perf_counter() - started
    print(f"eic: {GAMES / elapsed:.1f} random-bot games/s on one core (2-4 players, setup to outcome)")
    print(f"eic: {events / GAMES:.1f} events per game on average")
    wins = 0
    for i in range(GREEDY_GAMES):
        seat = i % 4
        bots = [random_bot] * 4
        bots[seat] = greedy_bot
        played = play_out(GAME, 4, {}, f"greedy-{i}".encode(), bots)
        outcome = GAME.outcome(played.state)
        wins += outcome is not None and outcome.winners[0] == seat
    print(
        f"eic: greedy bot won {wins}/{GREEDY_GAMES} 4-player games against three random bots ({wins / GREEDY_GAMES:.0%})"
    )


if __name__ == "__main__":
    main()
