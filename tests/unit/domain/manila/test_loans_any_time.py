"""Loans "jederzeit" (S0 "Kredit aufnehmen"; README decision 11): any seat may pledge a share for 12 or
repay 15 whenever the game runs, without changing whose turn it is; the standing highest bid must stay
payable; nothing after the game end."""

from __future__ import annotations

import pytest

from domain.engine import Rng, RuleViolation, play_out
from domain.manila import GAME, data
from domain.manila import commands as cmd
from domain.manila import events as ev
from domain.manila.bots import random_bot
from domain.manila.state import Player

from .helpers import act, start, to_placement, with_players


def test_a_player_may_mortgage_a_share_out_of_turn():
    state = start()
    good = state.players[2].shares[0]
    acting_before = GAME.legal_commands(state, 0)
    assert cmd.TakeLoan(good=good) in GAME.legal_commands(state, 2)
    after, events = act(state, 2, cmd.TakeLoan(good=good))
    assert events == [ev.LoanTaken(seat=2, good=good)]
    assert after.players[2].cash == data.START_CASH + 12 and good in after.players[2].mortgaged
    assert after.office_net == state.office_net + 12
    assert GAME.to_act(after) == frozenset({0}) and after.phase == state.phase == "auction"
    assert GAME.legal_commands(after, 0) == acting_before  # the bidder's choices are untouched


def test_a_player_may_repay_a_loan_out_of_turn():
    state = start()
    good = state.players[3].shares[0]
    state, _ = act(state, 3, cmd.TakeLoan(good=good))
    assert cmd.RepayLoan(good=good) in GAME.legal_commands(state, 3)
    after, events = act(state, 3, cmd.RepayLoan(good=good))
    assert events == [ev.LoanRepaid(seat=3, good=good)]
    assert after.players[3].cash == data.START_CASH - 3 and good in after.players[3].shares
    assert GAME.to_act(after) == frozenset({0})


def test_a_player_may_mortgage_a_share_out_of_turn_during_the_placement():
    state = to_placement()
    (placer,) = GAME.to_act(state)
    other = next(s for s in range(state.seats) if s != placer and state.players[s].shares)
    good = state.players[other].shares[0]
    after, events = act(state, other, cmd.TakeLoan(good=good))
    assert events == [ev.LoanTaken(seat=other, good=good)]
    assert GAME.to_act(after) == frozenset({placer}) and after.placer == state.placer


def test_a_seat_out_of_turn_may_send_loans_only():
    state = start()
    with pytest.raises(RuleViolation, match="not_your_turn"):
        act(state, 1, cmd.Bid(amount=5))
    with pytest.raises(RuleViolation, match="not_your_turn"):
        act(state, 1, cmd.PassBid())
    with pytest.raises(RuleViolation, match="no_such_seat"):
        act(state, 4, cmd.TakeLoan(good="jade"))
    with pytest.raises(RuleViolation, match="no_such_seat"):
        act(state, -1, cmd.TakeLoan(good="jade"))
    assert GAME.legal_commands(state, 4) == [] and GAME.legal_commands(state, -1) == []


def test_the_highest_bidder_may_not_repay_if_his_bid_would_become_unpayable():
    rest = start().players[1:]
    state = with_players(start(), Player(cash=20, shares=(), mortgaged=("jade", "silk")), *rest)
    state, _ = act(state, 0, cmd.Bid(amount=20))
    assert state.high_bidder == 0 and GAME.to_act(state) == frozenset({1})
    # repaying would leave 5 pesos + one share to pledge (12) = 17 < 20 (S0 chapter 1)
    assert not any(isinstance(c, cmd.RepayLoan) for c in GAME.legal_commands(state, 0))
    with pytest.raises(RuleViolation, match="bid_unpayable"):
        act(state, 0, cmd.RepayLoan(good="jade"))


def test_the_highest_bidder_may_repay_while_his_bid_stays_payable():
    rest = start().players[1:]
    state = with_players(start(), Player(cash=20, shares=(), mortgaged=("jade",)), *rest)
    state, _ = act(state, 0, cmd.Bid(amount=17))
    after, events = act(state, 0, cmd.RepayLoan(good="jade"))
    assert events == [ev.LoanRepaid(seat=0, good="jade")]
    assert after.players[0].cash == 5 and after.high_bid == 17 and GAME.to_act(after) == frozenset({1})


def test_a_pledge_out_of_turn_stays_hidden_from_the_others():
    state = start()
    good = state.players[1].shares[0]
    after, events = act(state, 1, cmd.TakeLoan(good=good))
    for viewer in (None, 0, 2, 3):
        assert GAME.redact(events[0], viewer).good is None
        assert GAME.view(after, viewer).players[1].mortgaged_count == 1
    assert GAME.redact(events[0], 1).good == good


def test_no_loan_after_the_game_has_ended():
    played = play_out(GAME, 3, {}, b"loans-over", [random_bot] * 3)
    final = played.state
    for seat in range(3):
        assert GAME.legal_commands(final, seat) == []
        for command in (cmd.TakeLoan(good=g) for g in data.GOODS):
            with pytest.raises(RuleViolation, match="game_over"):
                GAME.decide(final, seat, command, Rng(b"\x00" * 32))
