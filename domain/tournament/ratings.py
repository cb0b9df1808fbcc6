"""Ratings: OpenSkill's Plackett-Luce model, one rating per player and game.

Plackett-Luce rates a whole finishing order at once (a 5-seat table is one update, not ten pairwise
ones), handles ties, and is fast and free to use; see docs/tournaments.md for why over TrueSkill or
Glicko-2. Pure: the model is arithmetic only (no clock, no randomness in the numbers).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from functools import cache

import msgspec
from openskill.models import PlackettLuce
from openskill.models.weng_lin.plackett_luce import PlackettLuceRating

from domain.tournament.history import Player


class Rating(msgspec.Struct, frozen=True):
    """Mean skill and its uncertainty; ``ordinal`` (mu - 3 sigma) is what a leaderboard shows."""

    mu: float = 25.0
    sigma: float = 25.0 / 3

    @property
    def ordinal(self) -> float:
        return self.mu - 3 * self.sigma


@cache
def _model() -> PlackettLuce:
    return PlackettLuce()


def rate_table(
    ratings: Mapping[Player, Rating], ranking: Sequence[Player], places: Sequence[int] = ()
) -> dict[Player, Rating]:
    """New ratings of one finished table's players (first to last in ``ranking``); ``places`` gives each
    position's place (0 = first; empty: in order), and players sharing a place are rated as a tie
    (Plackett-Luce's ranks with ties)."""
    model = _model()
    ranks: list[float] = [place + 1.0 for place in (places or range(len(ranking)))]
    old = [ratings.get(player, Rating()) for player in ranking]
    if ranks == sorted(ranks):
        rated = _rate_in_order(model, old, ranks)
    else:
        rated = model.rate([[model.rating(mu=r.mu, sigma=r.sigma)] for r in old], ranks=ranks)
    return {player: Rating(team[0].mu, team[0].sigma) for player, team in zip(ranking, rated, strict=True)}


def _rate_in_order(
    model: PlackettLuce, old: Sequence[Rating], ranks: list[float]
) -> list[list[PlackettLuceRating]]:
    """``model.rate`` for ranks already in order (a table's, first to last), without its argument checks,
    its deep copy of the teams and its sort: the steps it takes then, in its order, so the floats are its
    floats (``tests/unit/domain/tournament/test_ratings.py`` holds the two equal). A round close rates 2,500
    tables; the copy (a ``uuid4`` a player) was half of their cost (issue 42)."""
    tau_squared = model.tau * model.tau
    teams = [[PlackettLuceRating(r.mu, math.sqrt(r.sigma * r.sigma + tau_squared))] for r in old]
    return list(model._compute(teams=teams, ranks=ranks))


def win_probability(better: Rating, worse: Rating) -> float:
    """The model's chance that ``better`` finishes ahead of ``worse`` at a two-seat table."""
    model = _model()
    a = model.rating(mu=better.mu, sigma=better.sigma)
    b = model.rating(mu=worse.mu, sigma=worse.sigma)
    return float(model.predict_win([[a], [b]])[0])
