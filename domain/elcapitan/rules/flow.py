"""Turn order, card display refill and the end of a phase (rulebook, "Kauf von Segelkarten",
"Zahltag": "Sobald ein Spieler alle seine Warenhäuser und Festungen, die vor ihm auf dem Tisch standen,
gebaut hat, wird die laufende Runde noch zu Ende gespielt [...]. Danach ist Zahltag." Nothing else ends
a phase; a round of loans is ordinary play).
"""

from __future__ import annotations

from msgspec.structs import replace

from domain.elcapitan import data
from domain.elcapitan import events as ev
from domain.elcapitan.rules.board import loans_available, supply_empty
from domain.elcapitan.rules.emitter import Emitter
from domain.elcapitan.rules.payday import hold_payday
from domain.elcapitan.rules.steps import turn_steps
from domain.elcapitan.state import State, TurnState
from domain.engine import Rng


def refill(out: Emitter, rng: Rng, deck_name: ev.DeckName) -> None:
    """Fill the display back up; an empty pile is replaced by the shuffled discards (order hidden)."""
    size = data.DESTINATION_DISPLAY if deck_name == "destination" else data.INTERCONNECTION_DISPLAY
    while True:
        deck = out.state.destinations if deck_name == "destination" else out.state.interconnections
        need = size - len(deck.display)
        if need <= 0:
            return
        if deck.draw:
            out.emit(ev.CardsRevealed(deck=deck_name, cards=deck.draw[:need]))
            continue
        if not deck.discard:
            return
        order = tuple(rng.shuffled(deck.discard))
        out.emit(ev.DeckShuffled(deck=deck_name, size=len(order), order=order, from_discard=True))


def deadlocked(state: State) -> bool:
    """Whether the phase may end without the rulebook's condition (elcapitan.md, ambiguity 14), at the end
    of a round in which nobody built: both loan stacks are empty, and

    - rules 2: nobody did anything at all in this round (no purchase, sailing, pirate move or action).
      Buying is voluntary, so a table may pass for ever with money in hand; every purchase or paid move
      spends money that only a build or a payday brings back, and every sailing spends a card, so a table
      that keeps doing something reaches such a round too;
    - rules 1: no player could do anything at all in a turn of the next round (no purchase, no sailing,
      no build, no loan): then nothing could ever change again.

    Cheap tests first: this runs at the end of a round in which nobody built.
    """
    if any(loans_available(state, kind.amount) > 0 for kind in data.LOANS):
        return False
    if state.rules != 1:
        return not state.busy_this_round
    fresh = replace(state, round=state.round + 1, turn=TurnState())
    return not any(turn_steps(replace(fresh, current=seat), seat) for seat in range(state.seats))


def end_turn(out: Emitter, rng: Rng, passed: bool = False) -> None:
    """Close the active player's turn: refill, check the phase end, start the next turn or the payday."""
    seat = out.state.current
    out.emit(ev.TurnEnded(seat=seat, passed=passed))
    refill(out, rng, "destination")
    refill(out, rng, "interconnection")
    state = out.state
    if not state.phase_ending and any(supply_empty(state, s) for s in range(state.seats)):
        first = next(s for s in range(state.seats) if supply_empty(state, s))
        out.emit(ev.PhaseEndAnnounced(seat=first, reason="supply_built"))
    state = out.state
    last_of_round = (seat + 1) % state.seats == state.start_player
    if not last_of_round:
        out.emit(ev.TurnStarted(seat=(seat + 1) % state.seats, round=state.round))
        return
    if not state.phase_ending and not state.built_this_round and deadlocked(state):
        # Safeguard (ambiguity 14): only a game that cannot go on at all ends its phase early.
        out.emit(ev.PhaseEndAnnounced(seat=seat, reason="deadlock"))
    if out.state.phase_ending:
        hold_payday(out)
        return
    out.emit(ev.TurnStarted(seat=state.start_player, round=state.round + 1))
