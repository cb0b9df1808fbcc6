"""After a payday: loans, money check, start player, new pieces; the game's end (rulebook "Nach einem
Zahltag", "Spielende"; elcapitan.md §7)."""

from __future__ import annotations

import pytest
from msgspec.structs import replace

from domain.elcapitan import GAME
from domain.elcapitan.commands import ChooseStartPlayer, ExtendLoan, RepayLoan, TakeLoan
from domain.elcapitan.rules.board import loans_available
from domain.elcapitan.rules.emitter import Emitter
from domain.elcapitan.rules.payday import hold_payday
from domain.elcapitan.state import Loan
from domain.engine import RuleViolation, rng_for

from .helpers import act, player, start


def payday_state(state):
    out = Emitter(state)
    hold_payday(out)
    return out.state, out.events


def test_example_loan_repayments_12_and_20_or_16_and_30_after_extension():
    state = player(start(3), 0, money=100, loans=(Loan(amount=10), Loan(amount=16)))
    state = player(
        state, 1, money=100, loans=(Loan(amount=10, extended=True), Loan(amount=16, extended=True))
    )
    state, _ = payday_state(state)
    assert state.settlers == (0, 1)
    before = state.players[0].money
    state, events = act(state, 0, RepayLoan(loan=0))
    assert events[0].amount == 12 and state.players[0].money == before - 12
    state, _ = act(state, 0, ExtendLoan(loan=0))
    assert state.players[0].loans == (Loan(amount=16, extended=True, settled=True),)
    before = state.players[1].money
    assert ExtendLoan(loan=0) not in GAME.legal_commands(state, 1)  # extended once only
    state, events = act(state, 1, RepayLoan(loan=0))
    assert events[0].amount == 16
    state, events = act(state, 1, RepayLoan(loan=0))
    assert events[0].amount == 30 and state.players[1].money == before - 46
    assert state.stage == "choose_start"
    assert state.players[0].loans == (Loan(amount=16, extended=True),)  # repaid at 30 after the next payday


def test_loans_are_settled_in_turn_order_from_the_phase_start_player():
    state = replace(start(3), start_player=2)
    for seat in range(3):
        state = player(state, seat, loans=(Loan(amount=10),))
    state, _ = payday_state(state)
    assert state.settlers == (2, 0, 1)
    with pytest.raises(RuleViolation) as err:
        GAME.decide(state, 0, RepayLoan(loan=0), rng_for(b"refused", 1))
    assert err.value.code == "elcapitan.not_your_turn"


def test_ambiguity_17_a_shortfall_is_covered_by_new_loans():
    state = player(start(3), 0, money=0, loans=(Loan(amount=16),))
    state, _ = payday_state(state)
    money = state.players[0].money  # whatever the empty board paid (nothing)
    state, events = act(state, 0, RepayLoan(loan=0))
    taken = [e.amount for e in events if type(e).__name__ == "LoanTaken"]
    assert money == 0 and taken == [10, 10] and state.players[0].money == 0
    assert [ln.amount for ln in state.players[0].loans] == [10, 10]


def test_money_check_and_the_poorest_player_chooses_the_next_start_player():
    state = player(player(start(3), 0, money=50), 1, money=30, loans=(Loan(amount=10),))
    state = player(state, 2, money=25)
    state, events = payday_state(state)
    state, events = act(state, 1, ExtendLoan(loan=0))
    checked = next(e for e in events if type(e).__name__ == "MoneyChecked")
    assert checked.wealth == (50, 14, 25) and checked.chooser == 1  # 30 minus 16 owed
    with pytest.raises(RuleViolation):
        GAME.decide(state, 0, ChooseStartPlayer(seat=0), rng_for(b"refused", 1))
    state, events = act(state, 1, ChooseStartPlayer(seat=2))
    assert state.phase == 2 and state.start_player == 2 and state.current == 2 and state.round == 1


def test_ambiguity_18_tied_poorest_the_first_in_turn_order_chooses():
    state = replace(start(3), start_player=1)
    state, events = payday_state(state)
    assert events[-1].chooser == 1


def test_six_new_warehouses_and_one_fortress_after_a_payday():
    state = player(start(4), 0, warehouses=2, fortresses=0)
    state, _ = payday_state(state)
    state, _ = act(state, state.chooser, ChooseStartPlayer(seat=0))
    assert (state.players[0].warehouses, state.players[0].fortresses) == (8, 1)
    assert state.pool_warehouses[0] == 6 and state.pool_fortresses[0] == 1


def test_ambiguity_20_ships_stay_where_they_are_between_phases():
    state = player(start(4), 0, ship="bank")
    state, _ = payday_state(state)
    state, _ = act(state, state.chooser, ChooseStartPlayer(seat=0))
    assert state.players[0].ship == "bank"


def test_game_ends_after_the_third_payday_loans_repaid_bonus_paid_most_money_wins():
    state = replace(start(3), phase=3)
    state = player(state, 0, money=40, loans=(Loan(amount=16, extended=True),), bonus=15)
    state = player(state, 1, money=20, loans=(Loan(amount=10),))
    state = player(state, 2, money=5, loans=(Loan(amount=10),))
    state, events = payday_state(state)
    assert state.stage == "over" and GAME.to_act(state) == frozenset()
    assert [p.money for p in state.players] == [25, 8, -7]  # ambiguity 17: an unpaid rest goes negative
    outcome = GAME.outcome(state)
    assert outcome.ranking == (0, 1, 2) and outcome.winners == (0,)
    assert type(events[-1]).__name__ == "GameEnded"


def test_ambiguity_19_equal_final_money_is_a_shared_victory():
    state = replace(start(3), phase=3)
    state = player(player(player(state, 0, money=30), 1, money=30), 2, money=10)
    state, _ = payday_state(state)
    assert GAME.outcome(state).winners == (0, 1)
    assert GAME.outcome(state).tie_break


def test_ambiguity_16_loan_stacks_are_limited_to_the_printed_cards():
    state = replace(start(3), round=2)
    state = player(state, 1, loans=tuple(Loan(amount=10) for _ in range(18)))
    assert loans_available(state, 10) == 0
    legal = GAME.legal_commands(state, 0)
    assert TakeLoan(amount=10) not in legal and TakeLoan(amount=16) in legal
