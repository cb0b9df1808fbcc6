"""Loans at any time (S0 "Kredit aufnehmen"): pledge a share for 12, repay 15.

"Jederzeit" is taken literally (README decision 11): every seat may pledge or repay while the game runs,
whether or not it is to act, and doing so never changes whose turn it is. The one limit is the auction's:
"Kein Spieler darf Gebote abgeben, die höher sind, als er zu zahlen in der Lage ist" (S0 chapter 1), so
the standing highest bidder may not repay a loan if that left his bid unpayable.
"""

from __future__ import annotations

from domain.manila import commands as cmd
from domain.manila import data
from domain.manila import events as ev
from domain.manila.rules.common import refuse
from domain.manila.state import State, means, sort_goods


def decide_take(state: State, seat: int, command: cmd.TakeLoan) -> list[ev.ManilaEvent]:
    """Pledge one free share of the named good for 12 pesos."""
    if command.good not in state.players[seat].shares:
        refuse("no_free_share", f"you hold no free {command.good} share to pledge")
    return [ev.LoanTaken(seat=seat, good=command.good)]


def _bid_stays_payable(state: State, seat: int) -> bool:
    """After repaying (cash −15, one more share to pledge: +12) the standing high bid is still payable."""
    if state.phase != "auction" or state.high_bidder != seat:
        return True
    after = means(state.players[seat]) - data.REPAY_AMOUNT + data.LOAN_AMOUNT
    return after >= state.high_bid


def decide_repay(state: State, seat: int, command: cmd.RepayLoan) -> list[ev.ManilaEvent]:
    """Pay 15 pesos to free a pledged share of the named good."""
    player = state.players[seat]
    if command.good not in player.mortgaged:
        refuse("no_loan", f"you have no pledged {command.good} share")
    if player.cash < data.REPAY_AMOUNT:
        refuse("cannot_afford", "repaying a loan costs 15 pesos")
    if not _bid_stays_payable(state, seat):
        refuse("bid_unpayable", "your highest bid must stay payable (S0 chapter 1): no repayment now")
    return [ev.LoanRepaid(seat=seat, good=command.good)]


def legal(state: State, seat: int) -> list[cmd.ManilaCommand]:
    """One pledge per distinct free good, one repayment per distinct pledged good if cash ≥ 15."""
    player = state.players[seat]
    out: list[cmd.ManilaCommand] = [cmd.TakeLoan(good=g) for g in sort_goods(list(set(player.shares)))]
    if player.cash >= data.REPAY_AMOUNT and _bid_stays_payable(state, seat):
        out += [cmd.RepayLoan(good=g) for g in sort_goods(list(set(player.mortgaged)))]
    return out
