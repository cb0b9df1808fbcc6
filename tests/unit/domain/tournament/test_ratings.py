"""Ratings: Plackett-Luce (Weng & Lin 2011, algorithm 4) on a small example worked by hand here, and
the openskill package through ``rate_table`` must agree with it."""

from __future__ import annotations

import math

import pytest

from domain.tournament.ratings import Rating, rate_table, win_probability

BETA = 25 / 6
TAU = 25 / 300  # openskill's default additive dynamics: sigma grows a little before each game
KAPPA = 0.0001


def _by_hand(ratings: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """Players listed first to last, no ties: the paper's update, written out."""
    sigmas = [math.sqrt(s * s + TAU * TAU) for _, s in ratings]
    mus = [m for m, _ in ratings]
    c = math.sqrt(sum(s * s + BETA * BETA for s in sigmas))
    exp = [math.exp(m / c) for m in mus]
    # sum_q: the sum over everyone who finished at place q or worse.
    below = [sum(exp[q:]) for q in range(len(mus))]
    out = []
    for i, (mu, sigma) in enumerate(zip(mus, sigmas, strict=True)):
        omega = delta = 0.0
        for q in range(i + 1):  # every place at or above i's
            share = exp[i] / below[q]
            omega += (1 - share) if q == i else -share
            delta += share * (1 - share)
        gamma = sigma / c
        new_mu = mu + sigma * sigma / c * omega
        new_sigma = sigma * math.sqrt(max(1 - gamma * sigma * sigma / (c * c) * delta, KAPPA))
        out.append((new_mu, new_sigma))
    return out


def test_a_three_player_table_matches_the_hand_computation() -> None:
    before = {0: Rating(), 1: Rating(30.0, 6.0), 2: Rating(20.0, 8.0)}
    # Player 2 (weakest) wins, player 0 second, player 1 (strongest) last.
    after = rate_table(before, (2, 0, 1))
    expected = _by_hand([(20.0, 8.0), (25.0, 25 / 3), (30.0, 6.0)])
    for player, (mu, sigma) in zip((2, 0, 1), expected, strict=True):
        assert after[player].mu == pytest.approx(mu, rel=1e-9)
        assert after[player].sigma == pytest.approx(sigma, rel=1e-9)
    # The direction a person checks first: the upset winner gains most, the favourite loses most.
    assert after[2].mu > 20.0 and after[1].mu < 30.0
    assert after[2].mu - 20.0 > abs(after[0].mu - 25.0)


def test_shared_first_place_is_a_tie() -> None:
    after = rate_table({}, (0, 1, 2), places=(0, 0, 2))
    assert after[0].mu == pytest.approx(after[1].mu)
    assert after[2].mu < 25.0 < after[0].mu


def test_a_shared_lower_place_is_a_tie_too() -> None:
    """Manila's last two level in wealth share third place: rated equal, unlike an ordered finish."""
    tied = rate_table({}, (0, 1, 2, 3), places=(0, 1, 2, 2))
    assert tied[2].mu == pytest.approx(tied[3].mu) and tied[2].sigma == pytest.approx(tied[3].sigma)
    ordered = rate_table({}, (0, 1, 2, 3))
    assert ordered[2].mu > tied[2].mu > ordered[3].mu


def test_ratings_predict_the_stronger_player() -> None:
    ratings: dict[int, Rating] = {}
    for _ in range(20):
        ratings.update(rate_table(ratings, (0, 1)))
    assert win_probability(ratings[0], ratings[1]) > 0.8
    assert ratings[0].ordinal > ratings[1].ordinal


def test_a_table_in_order_is_rated_as_openskills_rate_rates_it() -> None:
    """``rate_table`` skips ``rate``'s checks and deep copy for ranks in order (issue 42): its floats are
    still ``rate``'s, bit for bit, on tables of 2-5 with ties, in order or not (the latter through ``rate``)."""
    from domain.engine import Rng
    from domain.tournament.ratings import _model

    model, rng = _model(), Rng(b"openskill")
    for _ in range(400):
        seats = rng.randint(2, 5)
        old = {p: Rating(rng.randint(500, 4000) / 100, rng.randint(50, 900) / 100) for p in range(seats)}
        drawn = sorted(rng.randint(0, seats - 1) for _ in range(seats))
        places = [drawn.index(d) for d in drawn] if rng.randint(0, 2) else rng.shuffled(range(seats))
        teams = [[model.rating(mu=old[p].mu, sigma=old[p].sigma)] for p in range(seats)]
        rated = model.rate(teams, ranks=[place + 1.0 for place in places])
        expected = {p: Rating(team[0].mu, team[0].sigma) for p, team in enumerate(rated)}
        assert rate_table(old, list(range(seats)), places) == expected
