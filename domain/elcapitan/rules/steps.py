"""The steps open to the active player in a turn: buying, sailing, the action and the loan.

Its own module so that ``flow`` (the phase-end safeguard asks whether anybody could still act) and the
rules package (``legal_commands``) both import it, with no circle through the package.
"""

from __future__ import annotations

from domain.elcapitan import commands as cmd
from domain.elcapitan import data
from domain.elcapitan.rules import building, pirate, sailing
from domain.elcapitan.rules.board import card_cost
from domain.elcapitan.state import State
from domain.engine import Seat


def turn_steps(state: State, seat: Seat) -> list[cmd.ElCapitanCommand]:
    """Buying, sailing, the action and the loan open to the active player (not the pirate moves).

    Also the phase-end safeguard's test whether a player could do anything at all (``flow.deadlocked``).
    """
    out: list[cmd.ElCapitanCommand] = []
    p = state.players[seat]
    for card in (*state.destinations.display, *state.interconnections.display):
        if p.money >= card_cost(card):
            out.append(cmd.BuyCard(card=card))
    if not state.turn.acted:
        for card in dict.fromkeys(p.hand):
            out += [cmd.Sail(card=card, to=to) for to in sailing.sail_targets(state, seat, card)]
        out += building.action_commands(state, seat)
        owed = pirate.pirate_owed(state)
        for kind in data.LOANS:
            if building.accepts(building.check_loan, state, seat, kind.amount, owed):
                out.append(cmd.TakeLoan(amount=kind.amount))
    return out
