"""Hostile tournament settings (issues 31.1, 31.8, 33.1, 33.5) are refused before anything is stored,
each with a message that says what is allowed; every ordinary setting of every game and format passes."""

from __future__ import annotations

from typing import Any

import pytest

from domain import GAMES
from domain.engine import RuleViolation
from domain.tournament import Entrant, PointsByPlace, TournamentSettings
from domain.tournament.validate import MAX_PLAYERS, MAX_ROUNDS, check_settings

BOTS = ("greedy", "random")


def _check(game: str, players: int, **settings: Any) -> None:
    entrants = [Entrant(name=f"p{n}", bot="random") for n in range(players)]
    check_settings(TournamentSettings(game=game, **settings), entrants, GAMES[game], BOTS)


def _refused(game: str, players: int, **settings: Any) -> RuleViolation:
    with pytest.raises(RuleViolation) as refused:
        _check(game, players, **settings)
    return refused.value


@pytest.mark.parametrize("game", sorted(GAMES))
@pytest.mark.parametrize("fmt", ["swiss", "round_robin", "elimination"])
def test_ordinary_settings_of_every_game_and_format_pass(game: str, fmt: str) -> None:
    size = min(4, GAMES[game].max_seats)
    _check(game, 12, format=fmt, table_size=size, move_limit_s=30.0, total_limit_s=600.0)


@pytest.mark.parametrize("field", ["total_limit_s", "move_limit_s", "no_show_s"])
@pytest.mark.parametrize("value", [1e308, float("inf"), float("nan"), -1.0, 8 * 86400.0])
def test_a_clock_that_is_not_finite_seconds_up_to_a_week_is_refused(field: str, value: float) -> None:
    refused = _refused("manila", 4, **{field: value})
    assert refused.code == "tournament.clock"
    assert f"{field} is seconds from 0 (off) to 604800 (a week)" in refused.message


@pytest.mark.parametrize(
    ("game", "options", "said"),
    [
        ("manila", {"x": 1}, "unknown option(s) x; this game knows: variant_boarding, deal"),
        ("eic", {"pledging": "yes"}, "the option pledging is true or false"),
        ("elcapitan", {"expansions": "porto"}, "option 'expansions' is a list of city names"),
        ("manila", {"deal": None}, "deal is one of all_twenty, three_of_each"),
    ],
)
def test_options_the_game_refuses_are_refused_with_the_games_own_words(
    game: str, options: dict[str, Any], said: str
) -> None:
    refused = _refused(game, 6, table_size=3, options=options)
    assert refused.code == "tournament.options"
    assert refused.message.startswith(f"options refused by {game}: ") and said in refused.message


def test_an_elimination_whose_final_table_has_no_points_is_refused() -> None:
    """Issue 33.1: 15 Manila players at tables of 5 reach a table of 3; there were no points for 3."""
    points = PointsByPlace(by_size={"5": (10, 7, 5, 3, 1), "4": (10, 6, 3, 1)})
    refused = _refused("manila", 15, format="elimination", table_size=5, points=points)
    assert refused.code == "tournament.points"
    assert refused.message == "points by place for tables of 3 are missing (a list of 3)"


@pytest.mark.parametrize(("game", "players", "size"), [("elcapitan", 2, 4), ("manila", 3, 5)])
def test_a_field_that_cannot_fill_one_table_is_refused(game: str, players: int, size: int) -> None:
    """Issue 33.5: 2 El Capitán players at tables of 4 and 3 Manila players at tables of 5 sat out
    every round on byes."""
    refused = _refused(game, players, table_size=size)
    assert refused.code == "tournament.table_size"
    assert refused.message.startswith(f"{players} entrants cannot fill a table of {size - 1} or more")


@pytest.mark.parametrize("rounds", [-3, MAX_ROUNDS + 1, 10_000])
def test_rounds_out_of_range_are_refused(rounds: int) -> None:
    refused = _refused("manila", 8, rounds=rounds)
    assert refused.code == "tournament.rounds"
    assert refused.message == f"rounds is 0 (the format's natural length) to {MAX_ROUNDS}, not {rounds}"


def test_a_round_robin_longer_than_the_most_rounds_is_refused() -> None:
    refused = _refused("elcapitan", 150, format="round_robin", table_size=2)
    assert refused.code == "tournament.rounds"
    assert "a round-robin of 150 at tables of 2 takes 149 rounds" in refused.message


def test_more_players_than_the_maximum_are_refused() -> None:
    refused = _refused("manila", MAX_PLAYERS + 1)
    assert refused.code == "tournament.entrants"
    assert refused.message == f"{MAX_PLAYERS + 1} entrants; a tournament has at most {MAX_PLAYERS}"
    _check("manila", MAX_PLAYERS)  # the maximum itself is allowed


def test_an_unknown_bot_is_refused_naming_the_known_ones() -> None:
    entrants = [Entrant(name="a", bot="random"), Entrant(name="b", bot="deep-blue"), Entrant(name="c")]
    with pytest.raises(RuleViolation) as refused:
        check_settings(TournamentSettings(game="manila", table_size=3), entrants, GAMES["manila"], BOTS)
    assert refused.value.code == "tournament.bot"
    assert refused.value.message == "unknown bot 'deep-blue'; this game's bots are greedy, random"
