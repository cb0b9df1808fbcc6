"""The ``strong`` search bot against ``greedy`` (issue 45): win rates with a 95 % Wilson interval, per game,
and the time a move takes at each budget.

One ``strong`` seat (in each seat in turn) against greedy bots; a shared first place counts as a win
shared (1/k). The budget is a count of search iterations (the domain has no clock): playouts, spread over
a shortlist of candidates compared on common samples in Manila and El Capitán (``domain/search/
paired.py``), tree iterations in East India Companies; or a time level, CPU seconds a move on this machine
(``HM_STRONG_SECONDS``: the service's ``strong`` is 1 s of wall-clock time, which a loaded machine shares).
An El Capitán playout runs to the phase's payday, so it costs about six of Manila's.
Environment: ``HM_STRONG_GAMES`` games a game (default 20), ``HM_STRONG_ITERATIONS`` iterations a move
(default 40), ``HM_STRONG_SECONDS`` a level in CPU seconds a move instead, ``HM_STRONG_GAMES_ONLY`` a comma
list of game keys, ``HM_STRONG_SEATS`` the seats (default 4), ``HM_STRONG_FIRST`` the first game's number
(a match split over runs: game ``i`` has its seed and seat whichever run plays it), ``HM_STRONG_PROGRESS=1``
a line a game.

Figures: docs/benchmarks.md (``strong_bots``) and docs/history/benchmarks-notebook.md, "Search bots".
"""

from __future__ import annotations

import importlib
import math
import os
import time
from collections.abc import Callable
from typing import Any

from domain.engine import Bot, Game, Rng, play_out
from domain.search import search, strong_bot
from services import move_path

GAMES = ("manila", "eic", "elcapitan")
CAP = 100_000
"""Iterations no timed move exceeds (``workers.jobs.bots.STRONG_CAP``): the level stops it long before."""


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95 % Wilson score interval of a rate of ``wins`` in ``n``."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


class CpuBudget:
    """A search's ``stop``: true once ``seconds`` of this process's CPU time have passed since it was made,
    never before the first iteration (as ``workers.jobs.bots.Budget``, whose clock is the wall's). CPU time,
    so that a level means the same search on a loaded machine as on a quiet one."""

    def __init__(self, seconds: float) -> None:
        self.end = time.process_time() + seconds
        self.asked = 0

    def __call__(self) -> bool:
        self.asked += 1
        return self.asked > 1 and time.process_time() >= self.end


def searcher_of(key: str) -> Any:
    return importlib.import_module(f"domain.{key}.bots").SEARCHER


def level_bot(key: str, seconds: float) -> Bot:
    """The game's ``strong`` bot searching ``seconds`` of CPU time a move (the service's levels by the clock)."""
    searcher = searcher_of(key)

    def choose(state: Any, seat: int, rng: Rng) -> Any:
        return search(searcher, state, seat, rng, CAP, stop=CpuBudget(seconds))

    return choose


def budget_bot(key: str, iterations: int, seconds: float | None) -> Bot:
    """``strong`` at ``seconds`` a move if given, else at ``iterations``."""
    return level_bot(key, seconds) if seconds else strong_bot(searcher_of(key), iterations)


def match(
    key: str,
    games: int,
    iterations: int,
    seats: int = 4,
    seconds: float | None = None,
    first: int = 0,
    report: Callable[[str], None] | None = None,
) -> tuple[float, int, float]:
    """``strong`` in seat ``i % seats`` of game ``i`` (``first`` ≤ i < ``first + games``) against greedy:
    (wins, games, CPU s a strong move). ``report`` is given a line a game."""
    game: Game[Any, Any, Any, Any] = importlib.import_module(f"domain.{key}").GAME
    greedy = importlib.import_module(f"domain.{key}.bots").greedy_bot
    timed = _Timed(budget_bot(key, iterations, seconds))
    wins = 0.0
    for i in range(first, first + games):
        seat = i % seats
        players: list[Bot] = [greedy] * seats
        players[seat] = timed
        outcome = game.outcome(play_out(game, seats, {}, f"strong-{key}-{i}".encode(), players).state)
        assert outcome is not None
        won = (1.0 / len(outcome.winners)) if seat in outcome.winners else 0.0
        wins += won
        if report is not None:
            report(f"{key} game {i}: strong in seat {seat} scored {won:g}, scores {list(outcome.scores)}; "
                   f"{wins:g}/{i - first + 1} so far")  # fmt: skip
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


def rules_form() -> str:
    """Which form of the rules the playouts ran: compiled by mypyc or the sources (a stale build is passed
    over, ``services/move_path.py``): it changes a move's time, not the moves (an iteration budget decides
    the same either way)."""
    if move_path.interpreted_because is not None:
        return "interpreted (the build is stale or missing)"
    return "compiled (mypyc)" if move_path.compiled_form("domain.elcapitan.rules.payday") else "interpreted"


def main() -> None:
    env = os.environ.get
    print(f"rules: {rules_form()}", flush=True)
    games, iterations = int(env("HM_STRONG_GAMES", "20")), int(env("HM_STRONG_ITERATIONS", "40"))
    seconds = float(env("HM_STRONG_SECONDS", "0")) or None
    only = [k for k in env("HM_STRONG_GAMES_ONLY", "").split(",") if k]
    seats, first = int(env("HM_STRONG_SEATS", "4")), int(env("HM_STRONG_FIRST", "0"))
    report = (lambda line: print(line, flush=True)) if env("HM_STRONG_PROGRESS") == "1" else None
    budget = f"{seconds:g} CPU-s" if seconds else f"{iterations} iterations"
    for key in only or GAMES:
        rate = iterations_per_second(key)
        levels = ", ".join(f"{s:g} s ≈ {rate * s:,.0f} iterations" for s in (0.2, 1.0, 5.0))
        print(f"{key}: {rate:,.0f} search iterations a CPU-second: {levels}", flush=True)
        wins, n, per_move = match(key, games, iterations, seats, seconds, first, report)
        low, high = wilson(wins, n)
        print(f"{key}: strong ({budget} a move, {per_move:.2f} CPU-s a move) vs {seats - 1} greedy, {seats} "
              f"seats, games {first}–{first + n - 1}: won {wins:g}/{n} = {wins / n:.0%} (95 % CI "
              f"{low:.0%}–{high:.0%}; fair share {1 / seats:.0%})", flush=True)  # fmt: skip
