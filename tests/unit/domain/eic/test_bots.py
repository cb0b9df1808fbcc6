"""Bots: both choose among legal commands; the greedy bot beats three random bots most of the time."""

from __future__ import annotations

from domain.eic import GAME
from domain.eic.bots import BOTS, greedy_bot, random_bot
from domain.engine import Rng, play_out

from .helpers import start


def test_bots_choose_legal_commands():
    state = start(4)
    seat = state.actor
    legal = GAME.legal_commands(state, seat)
    rng = Rng(b"\3" * 32)
    assert random_bot(state, seat, rng) in legal
    assert greedy_bot(state, seat, rng) in legal
    assert set(BOTS) == {"random", "greedy", "strong"}


def test_greedy_bot_wins_a_clear_majority_of_four_player_games():
    games, wins = 40, 0
    for i in range(games):
        greedy_seat = i % 4
        bots = [random_bot] * 4
        bots[greedy_seat] = greedy_bot
        played = play_out(GAME, 4, {}, f"greedy-{i}".encode(), bots)
        outcome = GAME.outcome(played.state)
        assert outcome is not None
        wins += outcome.winners[0] == greedy_seat
    assert wins / games > 0.5
