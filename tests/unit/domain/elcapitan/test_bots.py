"""The bots: both choose only legal commands; the greedy merchant beats three random ones."""

from __future__ import annotations

from domain.elcapitan import GAME
from domain.elcapitan.bots import BOTS, greedy_bot, random_bot
from domain.engine import play_out


def test_bots_are_registered_by_name():
    assert {"random": random_bot, "greedy": greedy_bot} == {k: v for k, v in BOTS.items() if k != "strong"}
    assert set(BOTS) == {"random", "greedy", "strong"}


def test_greedy_bot_wins_a_clear_majority_of_four_player_games_against_random_bots():
    games, wins = 24, 0
    for i in range(games):
        seat = i % 4  # the greedy bot sits in every seat in turn
        bots = [random_bot] * 4
        bots[seat] = greedy_bot
        options = {"expansions": ["porto", "lisboa", "canarias"]} if i % 3 == 0 else {}
        played = play_out(GAME, 4, options, f"greedy-{i}".encode(), bots)
        outcome = GAME.outcome(played.state)
        wins += seat in outcome.winners
    assert wins / games > 0.5, wins


def test_greedy_bots_finish_games_against_each_other_for_every_seat_count():
    for seats in (2, 3, 4, 5):
        played = play_out(GAME, seats, {"expansions": ["canarias"]}, b"greedy-self", [greedy_bot] * seats)
        assert GAME.outcome(played.state) is not None
