"""Phase 1: the auction for the harbour master's office (S0 chapter 1)."""

from __future__ import annotations

from domain.manila import commands as cmd
from domain.manila import events as ev
from domain.manila.rules.common import forced_loans, refuse
from domain.manila.state import State, means


def _must_open(state: State, seat: int) -> bool:
    """In the first voyage the oldest player (seat 0) gives the first bid, at least 1 (S0)."""
    return state.voyage == 1 and state.high_bidder is None and seat == state.opener


def decide_bid(state: State, seat: int, command: cmd.Bid) -> list[ev.ManilaEvent]:
    """A bid must exceed the highest bid and be payable, shares pledged if need be (S0 chapter 1)."""
    if command.amount <= state.high_bid or command.amount < 1:
        refuse("bid_too_low", f"a bid must exceed the highest bid ({state.high_bid})")
    if command.amount > means(state.players[seat]):
        refuse("cannot_afford", "no one may bid more than cash plus what pledging his shares raises")
    return [ev.BidPlaced(seat=seat, amount=command.amount)]


def decide_pass_bid(state: State, seat: int, command: cmd.PassBid) -> list[ev.ManilaEvent]:
    """Not outbidding drops a player out of this auction for good."""
    if _must_open(state, seat):
        refuse("must_open", "in the first voyage the oldest player gives the first bid (at least 1)")
    return [ev.BidPassed(seat=seat)]


BIDS_OFFERED = 200
"""``legal_commands`` offers the lowest payable bids, at most this many; ``decide`` accepts any payable bid.

The office is unlimited (README, decision 6), so cash has no ceiling and every payable amount would make
the list unbounded (``domain/engine.py``, "Bounded"); 200 pesos above the highest bid is far beyond what
the office is worth."""


def legal(state: State, seat: int) -> list[cmd.ManilaCommand]:
    """The payable bids (the lowest ``BIDS_OFFERED`` of them), then passing (unless the first opener)."""
    lowest = max(1, state.high_bid + 1)
    highest = min(means(state.players[seat]), lowest + BIDS_OFFERED - 1)
    out: list[cmd.ManilaCommand] = [cmd.Bid(amount=a) for a in range(lowest, highest + 1)]
    if not _must_open(state, seat):
        out.append(cmd.PassBid())
    return out


def automatic(state: State) -> list[ev.ManilaEvent]:
    """Close the auction once only the highest bidder is left, or nobody bid at all.

    With no bid the previous harbour master stays in office and pays nothing (S0).
    """
    active = [s for s in range(state.seats) if not state.dropped[s]]
    if state.high_bidder is not None and active == [state.high_bidder]:
        loans: list[ev.ManilaEvent] = [*forced_loans(state, state.high_bidder, state.high_bid)]
        return [*loans, ev.HarbourMasterChosen(seat=state.high_bidder, price=state.high_bid)]
    if state.high_bidder is None and not active:
        keeper = state.harbour_master if state.harbour_master is not None else state.opener
        return [ev.HarbourMasterChosen(seat=keeper, price=0)]
    return []
