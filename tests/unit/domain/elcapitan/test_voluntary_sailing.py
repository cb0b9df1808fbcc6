"""„Im weiteren Spielverlauf ist das Segeln freiwillig.“ (rulebook, „Segeln“; issue 45, rules 3).

A turn needs an action only when one can be reached: „Wer an der Reihe ist, kann zuerst segeln und muss
danach eine der drei folgenden Aktionen ausführen.“ Rules 2 refused the pass while any sailing was
possible; those games keep their rules (``State.rules``).
"""

from __future__ import annotations

from msgspec.structs import replace

from domain.elcapitan import GAME
from domain.elcapitan.commands import BuyCard, EndTurn, ReopenWarehouse, Sail, TakeLoan
from domain.elcapitan.state import RULES, Loan, State
from domain.engine import Rng, decide_at

from .helpers import act, dock, hand, later_round, player, refused, set_city, start


def _all_loans_out(state: State) -> State:
    state = player(state, 1, loans=tuple(Loan(amount=10) for _ in range(18)))
    return player(state, 2, loans=tuple(Loan(amount=16) for _ in range(12)))


def _stuck_in_napoli() -> State:
    """Red (seat 0) in Napoli with the Napoli–Marseille card, 1 Florin, every loan card out."""
    state = later_round(player(dock(start(4), 0, "napoli"), 0, money=1))
    return hand(_all_loans_out(state), 0, "I04")


def test_new_games_are_decided_under_rules_3_or_later() -> None:
    assert RULES == GAME.rules == 5 and start(4).rules == 5  # rules 4 (issue 43) and 5 (issue 44) keep it


def test_loans_out_nothing_affordable_the_player_in_napoli_may_pass_without_sailing() -> None:
    state = _stuck_in_napoli()
    legal = GAME.legal_commands(state, 0)
    assert Sail(card="I04", to="marseille") in legal and not any(isinstance(c, TakeLoan) for c in legal)
    assert EndTurn() in legal
    passed, events = act(state, 0, EndTurn())
    assert events[0].passed and passed.current == 1
    assert passed.players[0].hand == ("I04",) and passed.players[0].ship == "napoli"  # the card is kept
    assert refused(replace(state, rules=2), 0, EndTurn()) == "elcapitan.action_required"


def test_first_round_a_player_who_spent_his_money_on_cards_is_not_made_to_sail_on() -> None:
    state = start(4)
    first = next(c for c in state.destinations.display if c.startswith("D"))
    state, _ = act(state, 0, BuyCard(card=first))
    state = hand(player(state, 0, money=0), 0, "I01", "I02", "I03")  # the rest of his 20 Florin
    target = GAME.legal_commands(state, 0)[0]
    assert isinstance(target, Sail)
    state, _ = act(state, 0, target)  # in he comes, as he must
    legal = GAME.legal_commands(state, 0)
    assert any(isinstance(c, Sail) for c in legal) and EndTurn() in legal
    passed, events = act(state, 0, EndTurn())
    assert events[0].passed and len(passed.players[0].hand) == 3
    assert refused(replace(state, rules=2), 0, EndTurn()) == "elcapitan.action_required"


def test_a_pass_is_refused_while_sailing_reaches_an_action() -> None:
    """A shut-down warehouse of his in Marseille re-opens free: the card takes him to the action."""
    state = set_city(_stuck_in_napoli(), "marseille", closed=(0,))
    assert ReopenWarehouse(site=1) not in GAME.legal_commands(state, 0)
    assert refused(state, 0, EndTurn()) == "elcapitan.action_required"
    there, _ = act(state, 0, Sail(card="I04", to="marseille"))
    assert ReopenWarehouse(site=1) in GAME.legal_commands(there, 0)


def test_a_pass_is_refused_while_sailing_reaches_an_affordable_build() -> None:
    state = player(_stuck_in_napoli(), 0, money=4)  # Marseille's first space costs 4; Napoli's is his own
    state = set_city(state, "napoli", harbours=(1, 0))  # he is on Napoli's dearer space (5)
    state = player(state, 0, harbour=1)
    assert refused(state, 0, EndTurn()) == "elcapitan.action_required"
    assert EndTurn() in GAME.legal_commands(player(state, 0, money=3), 0)


def test_a_ship_not_yet_in_the_game_must_still_come_in() -> None:
    state = hand(start(4), 0, "D01")
    assert refused(state, 0, EndTurn()) == "elcapitan.action_required"


def test_a_game_started_under_rules_2_is_decided_under_rules_2_to_its_end() -> None:
    """Set up again under its version (``setup_for``), a rules-2 game keeps version 2 to its end and
    re-decides to the same events; rules 3 would have judged the pass otherwise in some of its positions
    (a player choosing uniformly among all commands hoards cards and gets stuck with them)."""
    seed = b"rules-2-game"
    events = GAME.setup_for(3, {}, seed, 2)
    state = GAME.fold(events)
    bot_rng = Rng(b"rules-2-bots")
    differs = 0
    while GAME.outcome(state) is None:
        assert GAME.rules_in(state) == 2
        seat = min(GAME.to_act(state))
        differs += (EndTurn() in GAME.legal_commands(replace(state, rules=3), seat)) != (
            EndTurn() in GAME.legal_commands(state, seat)
        )
        command = bot_rng.choice(GAME.legal_commands(state, seat))  # hoards cards, then is stuck
        new = decide_at(GAME, state, seat, command, seed, len(events))
        assert decide_at(GAME, state, seat, command, seed, len(events)) == new
        state = GAME.fold(new, state)
        events += new
    assert differs > 0
