"""Payouts in the order A–D, the insurance, loans, the black market and the game end (S0 chapters 4,
5, "Die Versicherung zahlt", "Kredit aufnehmen", "Spielende und Gewinner")."""

from __future__ import annotations

import pytest
from msgspec.structs import replace

from domain.engine import Rng, RuleViolation
from domain.manila import GAME, data
from domain.manila import commands as cmd
from domain.manila import events as ev
from domain.manila.rules.payout import NO_TIE_BREAK, final_outcome
from domain.manila.state import Player

from .helpers import act, before_last_roll, boat, cash, last_roll, start, to_placement, with_players


def test_payouts_in_rulebook_order_pirates_cargo_harbour_shipyard():
    boats = (boat("jade", 12, 2), boat("nutmeg", 12, 3), boat("ginseng", 1))
    state = before_last_roll(to_placement(), boats, pirates=(1, None), harbour=(0, None, None),
                             shipyard=(2, None, None))  # fmt: skip
    state, events = last_roll(state, 1, 3, 1)  # jade on 13 (plundered), nutmeg in port
    state, more = act(state, 1, cmd.SendPlunderedBoat(good="jade", to="harbour"))
    kinds = [type(e).__name__ for e in events + more if not isinstance(e, ev.DiceRolled | ev.PilotPassed)]
    assert kinds[:4] == ["BoatPlundered", "PlunderedBoatSent", "BoatsBerthed", "Payout"]
    reasons = [e.reason for e in more if isinstance(e, ev.Payout)]
    assert reasons == ["cargo_nutmeg", "harbour_a", "shipyard_a"]


def test_insurance_agent_collects_first_then_pledges_and_the_office_covers_the_rest():
    boats = (boat("jade", 1, 3), boat("nutmeg", 1), boat("ginseng", 1))
    state = before_last_roll(to_placement(), boats, shipyard=(1, 2, None), insurance=3)
    state = with_players(state, *state.players[:3], Player(cash=0, shares=("ginseng",)))
    state = replace(state, harbour=(None, None, None))
    before, office = cash(state), state.office_net
    _, events = last_roll(
        state, 1, 1, 1
    )  # three boats in the shipyard: claims 6 (seat 1), 8 (2), 15 (office)
    claims = [e for e in events if isinstance(e, ev.InsuranceClaimPaid)]
    assert [(c.to_seat, c.by_agent, c.by_office) for c in claims] == [(1, 6, 0), (2, 6, 2), (None, 0, 0)]
    assert [e for e in events if isinstance(e, ev.LoanTaken)] == [
        ev.LoanTaken(seat=3, good="ginseng", forced=True)
    ]
    final = until_market(state, events)
    assert cash(final)[1] == before[1] + 6 and cash(final)[2] == before[2] + 8  # renters paid in full
    assert cash(final)[3] == 0 and final.office_net == office + 12 + 2  # his loan, plus the rest


def until_market(state, events):
    for e in events:
        state = GAME.evolve(state, e)
        if isinstance(e, ev.MarketRose):
            return state
    return state


def test_black_market_each_good_in_port_rises_one_step_0_5_10_20_30():
    state = before_last_roll(to_placement(), (boat("jade", 12), boat("nutmeg", 12), boat("ginseng", 1)))
    state = replace(state, market=(2, 0, 3, 0))
    after, events = last_roll(state, 3, 3, 1)
    assert ev.MarketRose(goods=("jade", "nutmeg")) in events
    assert after.market == (3, 0, 4, 0) or after.phase == "over"


def test_game_ends_when_a_good_reaches_30_wealth_is_cash_plus_free_shares_minus_15_per_loan():
    state = before_last_roll(to_placement(), (boat("jade", 12), boat("nutmeg", 1), boat("ginseng", 1)))
    players = (Player(cash=40, shares=("jade", "silk")), Player(cash=10, shares=("jade",), mortgaged=("silk",)),
               Player(cash=5, shares=(), mortgaged=("jade",)), Player(cash=3, shares=("ginseng",)))  # fmt: skip
    state = with_players(replace(state, market=(3, 2, 0, 0)), *players)
    final, events = last_roll(state, 3, 1, 1)
    assert GAME.to_act(final) == frozenset() and final.phase == "over"
    end = events[-1]
    assert isinstance(end, ev.GameEnded)
    # jade at 30, silk at 10, ginseng 0: seat 0 40+30+10; seat 1 10+30-15; seat 2 5-15; seat 3 3+0
    assert end.outcome.scores == (80, 25, -10, 3)
    assert end.outcome.ranking == (0, 1, 3, 2) and end.outcome.winners == (0,)
    assert end.hands[0] == ("jade", "silk") and end.mortgaged[2] == ("jade",)
    with pytest.raises(RuleViolation, match="game_over"):
        GAME.decide(final, 0, cmd.PassBid(), Rng(b"\x00" * 32))


def test_game_end_loans_repaid_automatically_when_cash_allows_most_valuable_first():
    state = before_last_roll(to_placement(), (boat("jade", 12), boat("nutmeg", 1), boat("ginseng", 1)))
    players = (Player(cash=20, shares=(), mortgaged=("jade", "ginseng")), *state.players[1:])
    state = with_players(replace(state, market=(3, 0, 0, 0)), *players)
    _, events = last_roll(state, 3, 1, 1)
    assert [e for e in events if isinstance(e, ev.LoanRepaid)] == [ev.LoanRepaid(seat=0, good="jade")]
    assert events[-1].outcome.scores[0] == 20 - 15 + 30 - 15


def test_game_end_tie_is_shared_there_is_no_tie_break():
    state = with_players(start(3), *(Player(cash=30, shares=()) for _ in range(3)))
    result = final_outcome(state)
    assert result.winners == (0, 1, 2) and result.tie_break == NO_TIE_BREAK


def test_loan_pledge_a_share_for_12_at_any_time_repay_15():
    state = start()
    good = state.players[0].shares[0]
    assert cmd.TakeLoan(good=good) in GAME.legal_commands(state, 0)
    state, events = act(state, 0, cmd.TakeLoan(good=good))
    assert events == [ev.LoanTaken(seat=0, good=good)]
    assert state.players[0].cash == 42 and good in state.players[0].mortgaged
    assert GAME.to_act(state) == frozenset({0})  # a loan does not end the turn
    state, _ = act(state, 0, cmd.RepayLoan(good=good))
    assert state.players[0].cash == 27 and not state.players[0].mortgaged and state.office_net == -3


def test_loan_refused_without_a_free_share_or_repayment_without_15_pesos():
    state = with_players(start(), Player(cash=14, shares=(), mortgaged=("jade",)), *start().players[1:])
    with pytest.raises(RuleViolation, match="no_free_share"):
        act(state, 0, cmd.TakeLoan(good="jade"))
    with pytest.raises(RuleViolation, match="cannot_afford"):
        act(state, 0, cmd.RepayLoan(good="jade"))
    with pytest.raises(RuleViolation, match="no_free_share"):
        act(state, 1, cmd.TakeLoan(good=next(g for g in data.GOODS if g not in state.players[1].shares)))


def test_office_net_tracks_every_peso():
    state = to_placement()
    assert sum(cash(state)) == 30 * 4 + state.office_net
    assert data.START_CASH == 30
