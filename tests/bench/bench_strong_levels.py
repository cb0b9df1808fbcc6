"""The OpenSkill gap between the bots' levels (issue 45): 4-seat tables of ``random``, ``greedy``,
``strong-0.2`` and ``strong-1``, seats rotated, rated as the service rates a table.

Game ``i`` seats level ``k`` in seat ``(k + i) % 4``; every table is one Plackett-Luce update of the four
levels (``domain.tournament.ratings.rate_table``, each starting at mu 25, sigma 25/3), their places as the
service's ratings place them (``domain.players.rating_rules.placing``: ties shared where the rulebook shares
them). A ``strong-S`` level searches ``S`` CPU seconds a move (``bench_strong_bots.level_bot``; the service's
levels are wall-clock seconds, which a loaded machine shares). Printed per game: each level's mu, sigma and
ordinal (mu − 3 sigma), the gaps in mu between every two levels with the model's chance that the
higher finishes ahead of the lower at a two-seat table, and how often each finished ahead of each other
level here (ties half) with a 95 % Wilson interval.
Environment: ``HM_LEVELS_GAMES`` tables a game (default 8), ``HM_LEVELS_GAMES_ONLY`` a comma list of game
keys, ``HM_LEVELS`` the levels (default ``random,greedy,strong-0.2,strong-1``), ``HM_LEVELS_PROGRESS=1``
a line a table.

Figures: docs/benchmarks.md (``strong_levels``) and docs/history/benchmarks-notebook.md, "Search bots".
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Sequence
from typing import Any

from domain.engine import Bot, Game, play_out
from domain.players.rating_rules import Seat, placing
from domain.tournament.ratings import Rating, rate_table, win_probability
from tests.bench.bench_strong_bots import GAMES, level_bot, wilson

LEVELS = ("random", "greedy", "strong-0.2", "strong-1")


def level_policy(key: str, name: str) -> Bot:
    """``strong-S``: the search at ``S`` CPU seconds a move; else the game's bot of that name."""
    if name.startswith("strong-"):
        return level_bot(key, float(name.removeprefix("strong-")))
    policy: Bot = importlib.import_module(f"domain.{key}.bots").BOTS[name]
    return policy


class Ladder:
    """The levels' ratings and who finished ahead of whom, table by table."""

    def __init__(self, levels: Sequence[str]) -> None:
        self.levels = list(levels)
        self.ratings = {name: Rating() for name in levels}
        self.ahead = {(a, b): 0.0 for a in levels for b in levels if a != b}
        self.tables = 0

    def add(self, places: dict[str, int]) -> None:
        """One table: each level's place (0 = first)."""
        ranking = sorted(range(len(self.levels)), key=lambda k: places[self.levels[k]])
        before = {k: self.ratings[name] for k, name in enumerate(self.levels)}
        after = rate_table(before, ranking, [places[self.levels[k]] for k in ranking])
        self.ratings.update({self.levels[k]: rating for k, rating in after.items()})
        for a, b in self.ahead:
            self.ahead[a, b] += 1.0 if places[a] < places[b] else 0.5 if places[a] == places[b] else 0.0
        self.tables += 1

    def lines(self) -> list[str]:
        out = [
            f"{n}: mu {r.mu:.2f}, sigma {r.sigma:.2f}, ordinal {r.ordinal:.2f}"
            for n, r in self.ratings.items()
        ]
        for j, high in enumerate(self.levels):
            for low in self.levels[:j]:
                out.append(self._gap(high, low))
        return out

    def _gap(self, high: str, low: str) -> str:
        """``high``'s lead over ``low``: in the ratings and at these tables."""
        a, b = self.ratings[high], self.ratings[low]
        share = self.ahead[high, low]
        lo, hi = wilson(share, self.tables)
        return (
            f"{high} over {low}: mu gap {a.mu - b.mu:+.2f} (ordinal {a.ordinal - b.ordinal:+.2f}), model's "
            f"chance ahead {win_probability(a, b):.0%}; ahead at {share:g} of {self.tables} tables "
            f"= {share / self.tables:.0%} (95 % CI {lo:.0%}–{hi:.0%})"
        )


def table(key: str, i: int, levels: Sequence[str], policies: dict[str, Bot]) -> dict[str, int]:
    """Game ``i``: level ``k`` in seat ``(k + i) % seats``; each level's place."""
    game: Game[Any, Any, Any, Any] = importlib.import_module(f"domain.{key}").GAME
    seats = len(levels)
    seat_of = {name: (k + i) % seats for k, name in enumerate(levels)}
    players: list[Bot] = [policies[levels[0]]] * seats
    for name, seat in seat_of.items():
        players[seat] = policies[name]
    outcome = game.outcome(play_out(game, seats, {}, f"levels-{key}-{i}".encode(), players).state)
    assert outcome is not None
    held = [Seat(seat=seat, bot=name) for name, seat in seat_of.items()]
    place = {p.seat: p.place for p in placing(key, outcome, held)}
    return {name: place[seat] for name, seat in seat_of.items()}


def ladder(
    key: str, games: int, levels: Sequence[str], report: Callable[[str], None] | None = None
) -> Ladder:
    policies = {name: level_policy(key, name) for name in levels}
    rated = Ladder(levels)
    for i in range(games):
        places = table(key, i, levels, policies)
        rated.add(places)
        if report is not None:
            report(f"{key} table {i}: places {places}")
    return rated


def main() -> None:
    env = os.environ.get
    games = int(env("HM_LEVELS_GAMES", "8"))
    only = [k for k in env("HM_LEVELS_GAMES_ONLY", "").split(",") if k]
    levels = [n for n in env("HM_LEVELS", ",".join(LEVELS)).split(",") if n]
    report = (lambda line: print(line, flush=True)) if env("HM_LEVELS_PROGRESS") == "1" else None
    for key in only or GAMES:
        rated = ladder(key, games, levels, report)
        print(
            f"{key}: {rated.tables} tables of {', '.join(levels)} (seats rotated), OpenSkill Plackett-Luce:"
        )
        for line in rated.lines():
            print(f"  {line}", flush=True)
