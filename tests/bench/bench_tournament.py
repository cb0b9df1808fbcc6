"""Tournament figures: Swiss pairing of 1,000 players into tables of 4 (goal < 1 s a round), and
OpenSkill rating updates per second."""

from __future__ import annotations

import time

from domain.engine import Rng
from domain.tournament.history import History, RoundPairing, repeat_pairs
from domain.tournament.pairing import pair_swiss
from domain.tournament.ratings import Rating, rate_table

PLAYERS = 1000
ROUNDS = 7


def _pairing() -> None:
    rng = Rng(b"bench-results")
    points = {3: (6, 4, 1), 4: (6, 5, 3, 1)}
    scores: dict[int, int] = {}
    played: list[RoundPairing] = []
    worst = 0.0
    for number in range(1, ROUNDS + 1):
        started = time.perf_counter()
        pairing = pair_swiss(
            list(range(PLAYERS)), scores, played, size=4, min_seats=3, max_seats=5, seed=b"bench"
        )
        elapsed = time.perf_counter() - started
        worst = max(worst, elapsed)
        repeats = repeat_pairs(pairing.tables, History(played))
        print(f"swiss round {number}: {PLAYERS} players into {len(pairing.tables)} tables in "
              f"{elapsed * 1000:.0f} ms ({repeats} repeated pairs)")  # fmt: skip
        played.append(pairing)
        for table in pairing.tables:
            for place, player in enumerate(rng.shuffled(table)):
                scores[player] = scores.get(player, 0) + points[len(table)][place]
    print(f"swiss pairing of {PLAYERS} players: slowest round {worst * 1000:.0f} ms (goal < 1000 ms)")


def _ratings() -> None:
    rng = Rng(b"bench-ratings")
    ratings: dict[int, Rating] = {}
    tables = 2000
    started = time.perf_counter()
    for _ in range(tables):
        ratings.update(rate_table(ratings, tuple(rng.sample(range(PLAYERS), 4))))
    elapsed = time.perf_counter() - started
    print(f"openskill plackett-luce: {tables / elapsed:.0f} four-seat tables rated per second")


def main() -> None:
    _pairing()
    _ratings()


if __name__ == "__main__":
    main()
