"""Ratings: OpenSkill's Plackett-Luce model, one rating per player and game.

Plackett-Luce rates a whole finishing order at once (a 5-seat table is one update, not ten pairwise
ones), handles ties, and is fast and free to use; see docs/tournaments.md for why over TrueSkill or
Glicko-2. Pure: the model is arithmetic only (no clock, no randomness in the numbers).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache

import msgspec
from openskill.models import PlackettLuce

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
    teams = []
    for player in ranking:
        r = ratings.get(player, Rating())
        teams.append([model.rating(mu=r.mu, sigma=r.sigma)])
    ranks: list[float] = [place + 1.0 for place in (places or range(len(ranking)))]
    rated = model.rate(teams, ranks=ranks)
    return {player: Rating(team[0].mu, team[0].sigma) for player, team in zip(ranking, rated, strict=True)}


def win_probability(better: Rating, worse: Rating) -> float:
    """The model's chance that ``better`` finishes ahead of ``worse`` at a two-seat table."""
    model = _model()
    a = model.rating(mu=better.mu, sigma=better.sigma)
    b = model.rating(mu=worse.mu, sigma=worse.sigma)
    return float(model.predict_win([[a], [b]])[0])
