"""The end of a phase (rulebook, "Zahltag"): "Sobald ein Spieler alle seine Warenhäuser und Festungen, die
vor ihm auf dem Tisch standen, gebaut hat, wird die laufende Runde noch zu Ende gespielt (so dass alle
Spieler gleich oft an der Reihe waren). Danach ist Zahltag." Nothing else ends a phase; the one safeguard
(elcapitan.md, ambiguity 14) is a game in which nobody can do anything any more.
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from msgspec.structs import replace

from domain.elcapitan import GAME, data
from domain.elcapitan import events as ev
from domain.elcapitan.bots import greedy_bot, random_bot
from domain.elcapitan.commands import BuyCard, EndTurn, TakeLoan
from domain.elcapitan.rules.board import supply_empty
from domain.elcapitan.rules.flow import deadlocked
from domain.elcapitan.state import Loan, State
from domain.engine import Rng, play_out

from .helpers import act, player, start

SUBSETS = [c for r in range(4) for c in itertools.combinations(data.EXPANSIONS, r)]


def _all_loans_taken(state: State) -> State:
    """Every one of the 18 + 12 loan cards in front of some player."""
    cards = [Loan(amount=kind.amount) for kind in data.LOANS for _ in range(kind.cards)]
    for seat in range(state.seats):
        state = player(state, seat, loans=tuple(cards[seat :: state.seats]))
    return state


def _broke(state: State) -> State:
    """No cash and no cards in any hand: nothing to buy or sail with."""
    for seat in range(state.seats):
        state = player(state, seat, money=0, hand=())
    return state


def test_zahltag_a_round_in_which_every_player_takes_a_loan_does_not_end_the_phase():
    state = replace(start(4), round=2)
    for seat in range(4):
        state, events = act(state, seat, TakeLoan(amount=10))
    assert not any(isinstance(e, ev.PhaseEndAnnounced | ev.PaydayHeld) for e in events)
    assert not state.phase_ending and state.stage == "turn"
    assert state.round == 3 and state.current == 0 and state.phase == 1


def test_zahltag_safeguard_only_after_a_round_in_which_nobody_did_anything_the_loans_being_out():
    """Rules 2: buying and sailing are voluntary, so a table may pass for ever with money in hand; a round
    in which nobody bought, sailed, moved the pirate or acted, with both loan stacks empty, ends the phase."""
    quiet = _all_loans_taken(replace(start(4), round=2))
    assert deadlocked(quiet)  # money in hand, yet nobody did anything this round
    assert not deadlocked(replace(quiet, busy_this_round=True))
    one_back = player(quiet, 0, loans=quiet.players[0].loans[1:])
    assert not deadlocked(one_back)  # a loan card is on its bank space again


def test_zahltag_a_purchase_keeps_the_round_going():
    state = _all_loans_taken(replace(start(4), round=2))
    for seat in range(4):
        state = player(state, seat, ship="bank")  # nothing to build or borrow: each may pass
    card = state.interconnections.display[0]  # no way off the bank with it
    state, _ = act(state, 0, BuyCard(card=card))
    state, events = act(state, 0, EndTurn())
    assert events[0].passed and state.busy_this_round
    for seat in (1, 2, 3):
        state, events = act(state, seat, EndTurn())
    assert not any(isinstance(e, ev.PhaseEndAnnounced) for e in events)
    assert state.round == 3 and not state.busy_this_round


def test_rules_1_zahltag_safeguard_only_when_nobody_can_buy_sail_build_or_borrow():
    stuck = replace(_broke(_all_loans_taken(replace(start(4), round=2))), rules=1)
    assert deadlocked(stuck)
    assert not deadlocked(player(stuck, 2, money=30))  # he can buy a card and sail
    one_back = player(stuck, 0, loans=stuck.players[0].loans[1:])
    assert not deadlocked(one_back)  # a loan card is on its bank space again


def test_zahltag_safeguard_a_round_of_passes_in_a_stuck_game_ends_the_phase():
    state = _broke(_all_loans_taken(replace(start(4), round=2)))
    for seat in range(4):
        assert GAME.legal_commands(state, seat) == [EndTurn()]
        state, events = act(state, seat, EndTurn())
    announced = [e for e in events if isinstance(e, ev.PhaseEndAnnounced)]
    assert [e.reason for e in announced] == ["deadlock"]
    assert any(isinstance(e, ev.PaydayHeld) for e in events)


def _uniform(state: Any, seat: int, rng: Rng) -> Any:
    """Any legal command, uniformly (the property tests' player: it squanders cash and loans)."""
    return rng.choice(GAME.legal_commands(state, seat))


def _check_phase_ends(events: list[Any]) -> int:
    """Fold a game and check each phase end against the rule; returns how many phases ended."""
    state: Any = GAME.evolve(None, events[0])
    ended = 0
    for event in events[1:]:
        if isinstance(event, ev.TurnStarted) and any(supply_empty(state, s) for s in range(state.seats)):
            assert state.phase_ending, "sobald: the turn that built everything announces the phase end"
        if isinstance(event, ev.PhaseEndAnnounced):
            if event.reason == "supply_built":
                assert supply_empty(state, event.seat), "phase end without a player who built everything"
            else:
                assert event.reason == "deadlock" and deadlocked(state) and not state.built_this_round
            ended += 1
        if isinstance(event, ev.PaydayHeld):
            assert state.phase_ending, "a payday without a phase end"
            last = (state.current + 1) % state.seats == state.start_player
            assert last, "the round is played to its end before the payday"
        state = GAME.evolve(state, event)
    return ended


@pytest.mark.parametrize("seats", [2, 3, 4, 5])
@pytest.mark.parametrize("expansions", SUBSETS, ids=lambda e: "+".join(e) or "base")
def test_zahltag_random_and_greedy_games_end_each_phase_only_after_a_player_built_everything(
    seats, expansions
):
    options = {"expansions": list(expansions)}
    for name, bot in (("random", random_bot), ("greedy", greedy_bot), ("uniform", _uniform)):
        played = play_out(GAME, seats, options, f"phase-end-{name}-{seats}".encode(), [bot] * seats)
        assert GAME.outcome(played.state) is not None
        assert _check_phase_ends(played.events) == data.PHASES
