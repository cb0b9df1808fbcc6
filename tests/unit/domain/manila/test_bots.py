"""The bots choose only legal commands, and the greedy bot beats three random bots clearly."""

from __future__ import annotations

from domain.engine import play_out
from domain.manila import GAME
from domain.manila.bots import BOTS, greedy_bot, random_bot


def test_greedy_bot_wins_a_clear_majority_of_four_player_games_against_random_bots():
    games, wins = 24, 0
    for i in range(games):
        seat = i % 4
        bots = [random_bot] * 4
        bots[seat] = greedy_bot
        played = play_out(GAME, 4, {}, f"greedy-{i}".encode(), bots)
        wins += seat in GAME.outcome(played.state).winners
    assert wins / games > 0.5


def test_bots_are_registered_and_finish_games_with_the_variant():
    assert set(BOTS) == {"random", "greedy", "strong"}
    played = play_out(
        GAME, 5, {"variant_boarding": True}, b"bots", [greedy_bot, random_bot] * 2 + [greedy_bot]
    )
    assert GAME.outcome(played.state) is not None
