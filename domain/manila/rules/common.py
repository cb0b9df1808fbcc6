"""Helpers every phase uses: refusals with stable codes, forced pledging of shares."""

from __future__ import annotations

from typing import NoReturn

from domain import engine
from domain.manila import data
from domain.manila import events as ev
from domain.manila.state import State, share_value


def refuse(code: str, message: str) -> NoReturn:
    """Raise the refusal ``manila.<code>`` (``engine.refuse``, shared by the three games)."""
    engine.refuse(data.GAME_KEY, code, message)


def forced_loans(state: State, seat: int, amount: int) -> list[ev.LoanTaken]:
    """The pledges a seat MUST make to pay ``amount`` (S0 "Kredit aufnehmen": "MUSS Kredite aufnehmen").

    Project decision (README "forced pledging"): the cheapest shares on the black market are pledged
    first (ties in ``data.GOODS`` order), because a pledged share is worth nothing at the end.
    """
    player = state.players[seat]
    short = amount - player.cash
    loans: list[ev.LoanTaken] = []
    for good in sorted(player.shares, key=lambda g: (share_value(state, g), data.GOODS.index(g))):
        if short <= 0:
            break
        loans.append(ev.LoanTaken(seat=seat, good=good, forced=True))
        short -= data.LOAN_AMOUNT
    return loans


def at_sea(state: State) -> list[int]:
    """Indices of the boats not yet in the harbour or the shipyard."""
    return [i for i, b in enumerate(state.boats) if not b.berth]
