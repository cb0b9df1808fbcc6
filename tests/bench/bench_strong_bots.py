"""The ``strong`` search bot against ``greedy`` (issue 45): win rates with a 95 % Wilson interval, per game,
and the time a move takes at each budget.

One ``strong`` seat (in each seat in turn) against greedy bots at 4 seats; a shared first place counts as
a win shared (1/k). The budget is a count of search iterations (the domain has no clock): playouts, spread
over a shortlist of candidates compared on common samples in Manila and El Capitán (``domain/search/
paired.py``), tree iterations in East India Companies. The time a move per level is measured in CPU seconds
on this machine; an El Capitán playout runs to the phase's payday, so it costs about six of Manila's.
Environment: ``HM_STRONG_GAMES`` games a game (default 20), ``HM_STRONG_ITERATIONS`` iterations a move
(default 40), ``HM_STRONG_GAMES_ONLY`` a comma list of game keys, ``HM_STRONG_SEATS`` the seats (default 4).

Figures (docs/benchmarks.md, ``strong_bots``), 40 iterations a move at 4 seats, load average 8–13 on the
2 cores: Manila won 31 of 40 (78 %, 95 % CI 62–88 %; 0.03 CPU-s a move; 31 of 40 again at 200), at
3 seats 32 of 40 (80 %, 65–90 %); El Capitán 31 of 40 (78 %, 62–88 %; 0.23 CPU-s a move; the match
split over processes, docs/history/benchmarks-notebook.md). Before the paired comparison (the tree for
every game): Manila 42 % (27–59 %), El Capitán 29 % (15–49 %). El Capitán's games take ~20 CPU-s each at
40 playouts a move; the issue's 200 games at 1 s a move take hours a game here.
"""

from __future__ import annotations

import importlib
import math
import os
import time
from typing import Any

from domain.engine import Bot, Game, Rng, play_out
from domain.search import search, strong_bot

GAMES = ("manila", "eic", "elcapitan")


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95 % Wilson score interval of a rate of ``wins`` in ``n``."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def match(key: str, games: int, iterations: int, seats: int = 4) -> tuple[float, int, float]:
    """``strong`` in seat ``i % seats`` of game ``i`` against greedy: (wins, games, CPU s a strong move)."""
    game: Game[Any, Any, Any, Any] = importlib.import_module(f"domain.{key}").GAME
    bots = importlib.import_module(f"domain.{key}.bots")
    timed = _Timed(strong_bot(bots.SEARCHER, iterations))
    wins = 0.0
    for i in range(games):
        seat = i % seats
        players: list[Bot] = [bots.greedy_bot] * seats
        players[seat] = timed
        outcome = game.outcome(play_out(game, seats, {}, f"strong-{key}-{i}".encode(), players).state)
        assert outcome is not None
        wins += (1.0 / len(outcome.winners)) if seat in outcome.winners else 0.0
    return wins, games, timed.seconds / max(timed.moves, 1)


class _Timed:
    """A bot that counts its moves and CPU time (benchmark only: the domain itself has no clock)."""

    def __init__(self, bot: Bot) -> None:
        self.bot, self.moves, self.seconds = bot, 0, 0.0

    def __call__(self, state: Any, seat: int, rng: Rng) -> Any:
        started = time.process_time()
        try:
            return self.bot(state, seat, rng)
        finally:
            self.seconds += time.process_time() - started
            self.moves += 1


def iterations_per_second(key: str, samples: int = 6, iterations: int = 20) -> float:
    """Search iterations a CPU-second from the first positions of a greedy game (to map time levels)."""
    game: Game[Any, Any, Any, Any] = importlib.import_module(f"domain.{key}").GAME
    bots = importlib.import_module(f"domain.{key}.bots")
    state, _ = game.start(4, {}, b"levels")
    rng, spent, done = Rng(b"levels"), 0.0, 0
    for _ in range(samples * 8):
        if done >= samples or game.outcome(state) is not None:
            break
        seat = min(game.to_act(state))
        if len(game.legal_commands(state, seat)) > 1:
            started = time.process_time()
            search(bots.SEARCHER, state, seat, rng, iterations)
            spent += time.process_time() - started
            done += 1
        state = game.fold(game.decide(state, seat, bots.greedy_bot(state, seat, rng), rng), state)
    return done * iterations / spent if spent else 0.0


def main() -> None:
    games = int(os.environ.get("HM_STRONG_GAMES", "20"))
    iterations = int(os.environ.get("HM_STRONG_ITERATIONS", "40"))
    only = [k for k in os.environ.get("HM_STRONG_GAMES_ONLY", "").split(",") if k]
    seats = int(os.environ.get("HM_STRONG_SEATS", "4"))
    for key in only or GAMES:
        rate = iterations_per_second(key)
        levels = ", ".join(f"{s:g} s ≈ {rate * s:,.0f} iterations" for s in (0.2, 1.0, 5.0))
        print(f"{key}: {rate:,.0f} search iterations a CPU-second: {levels}", flush=True)
        wins, n, per_move = match(key, games, iterations, seats)
        low, high = wilson(wins, n)
        print(f"{key}: strong ({iterations} iterations, {per_move:.2f} CPU-s a move) vs {seats - 1} greedy, "
              f"{seats} seats: won {wins:g}/{n} = {wins / n:.0%} (95 % CI {low:.0%}–{high:.0%}; fair share "
              f"{1 / seats:.0%})", flush=True)  # fmt: skip
