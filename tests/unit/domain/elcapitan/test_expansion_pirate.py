"""The expansion city Islas Canarias and its pirate (rulebook "Regeln für die Erweiterungen").

Colours in 4-player examples: 0 Red, 1 Green, 2 Yellow, 3 Blue.
"""

from __future__ import annotations

from msgspec.structs import replace

from domain.elcapitan import GAME, data
from domain.elcapitan.commands import (
    BuildWarehouse,
    EndTurn,
    MovePirate,
    Sail,
)
from domain.elcapitan.rules.pirate import protection
from domain.elcapitan.state import EMPTY, PIRATE

from .helpers import act, chain, city, dock, hand, pirate_at, player, refused, set_city, start

RED, GREEN, YELLOW, BLUE = 0, 1, 2, 3
ALL = ("porto", "lisboa", "canarias")


# --- Islas Canarias and the pirate --------------------------------------------------------------------------


def test_pirate_starts_on_the_second_harbour_of_canarias_and_blocks_it():
    state = start(4, ("canarias",))
    assert state.pirate == "canarias" and city(state, "canarias").harbours == (EMPTY, PIRATE)
    state = dock(state, 1, "canarias", 0)
    state = hand(dock(state, 0, "tanger"), 0, "D13")  # Tanger card, 1 seal
    _, events = act(state, 0, Sail(card="D13", to="canarias"))
    assert events[0].harbour == EMPTY  # blocked: passing through only


def test_pirate_arrival_obliges_a_free_move_and_collects_protection_by_phase():
    state = start(4, ("canarias",))
    state = chain(state, "marseille", {1: GREEN, 2: YELLOW, 3: GREEN})
    state = set_city(state, "marseille", fortresses=(GREEN, EMPTY))
    state = replace(hand(dock(state, 0, "tanger"), 0, "D13"), phase=2)
    state, _ = act(state, 0, Sail(card="D13", to="canarias"))
    assert state.turn.pirate_due
    state, _ = act(state, 0, BuildWarehouse(site=1))
    assert refused(state, 0, EndTurn()) == "elcapitan.pirate_move_owed"
    assert refused(state, 0, MovePirate(to="canarias", space=0, free=True)) == "elcapitan.pirate_bad_city"
    state, events = act(state, 0, MovePirate(to="marseille", space=0, free=True))
    assert events[1].payments == (0, 6, 2, 0)  # 2 Florin a building in phase 2
    assert state.players[0].money == 20 - 3 + 8
    assert state.pirate == "marseille" and city(state, "canarias").harbours == (0, EMPTY)
    assert refused(state, 0, MovePirate(to="tunis", space=0, free=True)) == "elcapitan.pirate_not_free"
    # Rules 2: "einmal" limits the paid move, which is still open after the free one.
    assert MovePirate(to="tunis", space=0) in GAME.legal_commands(state, 0)
    state, _ = act(state, 0, EndTurn())


def test_rules_1_one_pirate_move_a_turn_the_free_one_included():
    """Games started before issue 32 keep ambiguity 33's first reading: the free move is the turn's move."""
    state = replace(start(4, ("canarias",)), rules=1)
    state = hand(dock(state, 0, "tanger"), 0, "D13")
    state, _ = act(state, 0, Sail(card="D13", to="canarias"))
    assert refused(state, 0, MovePirate(to="tunis", space=0)) == "elcapitan.pirate_move_owed"
    state, _ = act(state, 0, MovePirate(to="marseille", space=0, free=True))
    assert refused(state, 0, MovePirate(to="tunis", space=0)) == "elcapitan.pirate_already_moved"


def test_free_pirate_move_is_still_owed_after_a_paid_one():
    """„Der Spieler, der mit seinem Schiff zu den Islas Canarias segelt, legt in einem der beiden Häfen an,
    muss im selben Zug das Piratenschiff, egal wo es steht, kostenlos in eine andere Stadt versetzen und
    dort eine Schutzgebühr eintreiben.“ The paid move („einmal versetzen“, by cards or money) before the
    sailing does not take its place."""
    state = chain(start(4, ("canarias",)), "napoli", {1: GREEN, 2: YELLOW})
    state = hand(dock(state, 0, "tanger"), 0, "D13")
    state, events = act(state, 0, MovePirate(to="tunis", space=0))  # paid: 2 steps from Canarias
    assert events[0].cost == 4 and not state.turn.pirate_due
    state, _ = act(state, 0, Sail(card="D13", to="canarias"))
    assert state.turn.pirate_due and city(state, "canarias").harbours[0] == RED
    assert refused(state, 0, EndTurn()) == "elcapitan.pirate_move_owed"
    assert refused(state, 0, MovePirate(to="athina", space=0)) == "elcapitan.pirate_already_moved"
    free = [c for c in GAME.legal_commands(state, 0) if isinstance(c, MovePirate)]
    assert free and all(c.free for c in free) and MovePirate(to="napoli", space=0, free=True) in free
    state, events = act(state, 0, MovePirate(to="napoli", space=0, free=True))
    assert events[1].payments == (0, 1, 1, 0)  # phase 1: 1 Florin a building
    assert not state.turn.pirate_due
    state, _ = act(state, 0, BuildWarehouse(site=1))
    state, _ = act(state, 0, EndTurn())
    assert state.current == 1


def test_rules_1_dropped_the_free_move_after_a_paid_one():
    """The deviation issue 32 fixed, kept for games started before: no free move after a paid one."""
    state = replace(start(4, ("canarias",)), rules=1)
    state = hand(dock(state, 0, "tanger"), 0, "D13")
    state, _ = act(state, 0, MovePirate(to="tunis", space=0))
    state, _ = act(state, 0, Sail(card="D13", to="canarias"))
    assert not [c for c in GAME.legal_commands(state, 0) if isinstance(c, MovePirate)]
    state, _ = act(state, 0, BuildWarehouse(site=1))
    assert EndTurn() in GAME.legal_commands(state, 0)


def test_free_pirate_move_is_owed_once_a_turn():
    state = hand(
        dock(start(4, ("canarias",)), 0, "tanger"), 0, "D13", "D15", "D14"
    )  # Tanger 1, Tunis, Tanger 2
    state, _ = act(state, 0, Sail(card="D13", to="canarias"))
    state, _ = act(state, 0, MovePirate(to="marseille", space=0, free=True))
    state, _ = act(state, 0, Sail(card="D15", to="tunis"))
    state, events = act(state, 0, Sail(card="D14", to="canarias"))  # back, two seals
    assert events[0].harbour == 0 and not state.turn.pirate_due
    assert not [c for c in GAME.legal_commands(state, 0) if isinstance(c, MovePirate) and c.free]


def test_ambiguity_35_pirate_displaces_a_ship_to_the_other_space_which_then_builds_dearer():
    state = pirate_at(dock(start(4, ("canarias",)), 1, "marseille", 0), "tunis", 0)
    state, events = act(state, 0, MovePirate(to="marseille", space=0))
    assert events[0].cost == 2 * 3 and events[0].displaced == 1 and events[0].displaced_to == 1
    assert city(state, "marseille").harbours == (PIRATE, 1) and state.players[1].harbour == 1
    _, built = act(replace(state, current=1, turn=replace(state.turn, pirate_moved=False)), 1,
                   BuildWarehouse(site=1))  # fmt: skip
    assert built[0].cost == 5


def test_pirate_moves_only_to_a_city_with_a_free_space_and_never_within_a_city():
    state = start(4, ("canarias",))
    state = dock(dock(state, 1, "tanger", 0), 2, "tanger", 1)
    assert refused(state, 0, MovePirate(to="tanger", space=0)) == "elcapitan.pirate_no_free_space"
    assert refused(state, 0, MovePirate(to="canarias", space=0)) == "elcapitan.pirate_bad_city"


def test_pirate_moved_with_a_sailing_card_or_two_florin_a_step_without_charge():
    state = pirate_at(hand(start(4, ("canarias",)), 0, "I34"), "tanger", 0)  # Tanger–Tunis
    state = chain(state, "tunis", {1: GREEN})
    moved, events = act(state, 0, MovePirate(to="tunis", space=0, cards=("I34",)))
    assert events[0].cost == 0 and len(events) == 1 and "I34" in moved.interconnections.discard
    assert refused(state, 0, MovePirate(to="alexandria", space=0, cards=("I34",))) == "elcapitan.unreachable"
    paid, events = act(state, 0, MovePirate(to="alexandria", space=1))
    assert events[0].cost == 4 and paid.players[0].money == 16 and len(events) == 1


def test_ambiguity_32_no_free_target_means_no_move_and_no_charge():
    state = start(4, ("canarias",))
    state = hand(dock(state, 0, "tanger", 0), 0, "D13")
    state, _ = act(state, 0, Sail(card="D13", to="canarias"))
    for c in list(state.cities):
        if c.name != "canarias":  # every other harbour space taken (stand-in ships)
            state = set_city(state, c.name, harbours=(9,) * len(c.harbours))
    assert state.turn.pirate_due and not [
        c for c in GAME.legal_commands(state, 0) if isinstance(c, MovePirate)
    ]
    state, _ = act(state, 0, BuildWarehouse(site=1))
    assert EndTurn() in GAME.legal_commands(state, 0)


def test_ambiguity_36_protection_ignores_own_buildings_and_shut_down_ones_and_caps_at_cash():
    state = chain(start(4, ("canarias",)), "tunis", {1: RED, 2: GREEN, 3: GREEN, 4: YELLOW})
    state = set_city(state, "tunis", closed=(BLUE,), fortresses=(RED, YELLOW))
    state = player(replace(state, phase=3), YELLOW, money=4)
    assert protection(state, RED, "tunis") == (0, 6, 4, 0)


def test_protection_a_player_in_debt_pays_what_she_has_nothing():
    """„Die betroffenen Spieler müssen die Schutzgebühr bezahlen, sofern sie Geld haben. Reicht ihr Geld
    nicht aus, zahlen sie den Geldbetrag, den sie besitzen.“ Who owes money has none: she pays nothing,
    and the collector never pays her."""
    state = chain(start(4, ("canarias",)), "tunis", {1: GREEN, 2: YELLOW, 3: YELLOW})
    state = player(player(state, GREEN, money=-7), YELLOW, money=0)
    assert protection(state, RED, "tunis") == (0, 0, 0, 0)
    state = hand(dock(state, RED, "tanger"), RED, "D13")
    state, _ = act(state, RED, Sail(card="D13", to="canarias"))
    state, events = act(state, RED, MovePirate(to="tunis", space=0, free=True))
    assert events[1].payments == (0, 0, 0, 0)
    assert [p.money for p in state.players] == [20, -7, 0, 20]
    assert protection(replace(state, rules=1), RED, "tunis")[GREEN] == -7  # the deviation, rules 1 only


def test_pirate_moved_with_two_cards_when_one_cannot_reach():
    # Alexandria → Porto is five steps: no single card reaches; the Alexandria card (3 seals) to Valencia
    # and then the Marseille card (3 seals) to Porto does, as does the Marseille card to Marseille first.
    state = pirate_at(hand(start(4, ("canarias", "porto")), 0, "D18", "I33", "D02"), "alexandria", 0)
    legal = GAME.legal_commands(state, 0)
    to_porto = [c for c in legal if isinstance(c, MovePirate) and c.to == "porto" and c.cards]
    assert [c.space for c in to_porto] == [0, 1, 2] and len({c.cards for c in to_porto}) == 1
    assert sorted(to_porto[0].cards) == ["D02", "D18"]
    for one in ("athina", "tunis", "napoli"):  # one card suffices there: that is the card move offered
        assert {len(c.cards) for c in legal if isinstance(c, MovePirate) and c.to == one and c.cards} == {1}
    assert to_porto[0].cards == ("D02", "D18")  # Marseille first
    moved, events = act(state, 0, MovePirate(to="porto", space=0, cards=("D02", "D18")))
    assert moved.pirate == "porto" and events[0].cost == 0 and len(events) == 1
    assert {"D18", "D02"} <= set(moved.destinations.discard)
    valencia_first = MovePirate(to="porto", space=1, cards=("D18", "D02"))  # reaches too, not offered
    assert refused(state, 0, valencia_first) == "elcapitan.pirate_cards_not_offered"  # rules 4
    moved, _ = act(replace(state, rules=3), 0, valencia_first)  # rules 2 and 3 took it
    assert moved.pirate == "porto"


def test_pirate_cards_are_played_in_the_order_named_each_leg_from_where_the_last_ended():
    # "eine oder mehrere eigene Segelkarten": Alexandria → Valencia by I26 (Valencia–Alexandria), then
    # one seal (D09) and one more seal (D11) to Porto. In another order the cards go elsewhere.
    state = pirate_at(hand(start(4, ("canarias", "porto")), 0, "D09", "D11", "I26"), "alexandria", 0)
    state = replace(state, rules=3)  # rules 4 takes the offered cards only (test_decision_pirate_cards_…)
    legal = [c for c in GAME.legal_commands(state, 0) if isinstance(c, MovePirate) and c.to == "porto"]
    offered = {c.cards for c in legal if c.cards}
    assert len(offered) == 1 and next(iter(offered))[0] == "I26"
    moved, events = act(state, 0, MovePirate(to="porto", space=1, cards=("I26", "D09", "D11")))
    assert moved.pirate == "porto" and events[0].cost == 0 and events[0].cards == ("I26", "D09", "D11")
    assert moved.players[0].hand == () and {"D09", "D11"} <= set(moved.destinations.discard)
    assert "I26" in moved.interconnections.discard
    sorted_order = MovePirate(to="porto", space=1, cards=("D09", "D11", "I26"))
    assert refused(state, 0, sorted_order) == "elcapitan.unreachable"
    twice = MovePirate(to="porto", space=1, cards=("I26", "D09", "D09"))
    assert refused(state, 0, twice) == "elcapitan.card_not_in_hand"


def test_decision_pirate_cards_are_those_offered_from_rules_4():
    """Rules 2 and 3: „Wer an der Reihe ist, kann so viele Segelkarten einsetzen, wie er will“, and cards
    move the pirate as a ship (ambiguity 34): a card the move could do without was allowed (rules 1 refused
    it). Rules 4 (issue 43, finding 18: ``decide`` took moves ``legal_commands`` never offered) takes the
    cards offered for the target only, the fewest that reach it."""
    fresh = pirate_at(hand(start(4, ("canarias", "porto")), 0, "D09", "D11", "I26"), "alexandria", 0)
    # I26 alone takes the pirate to Valencia; D09 and D11 (one seal each) go on to Marseille and back.
    roundabout = MovePirate(to="valencia", space=0, cards=("I26", "D09", "D11"))
    assert refused(fresh, 0, roundabout) == "elcapitan.pirate_cards_not_offered"
    assert act(fresh, 0, MovePirate(to="valencia", space=0, cards=("I26",)))[0].pirate == "valencia"
    state = replace(fresh, rules=3)
    moved, events = act(state, 0, roundabout)
    assert moved.pirate == "valencia" and moved.players[0].hand == () and events[0].cost == 0
    old = replace(state, rules=1)
    assert refused(old, 0, MovePirate(to="valencia", space=0, cards=("D09", "D11", "I26"))) == (
        "elcapitan.pirate_card_not_needed"
    )


def test_rules_1_pirate_card_sets_sorted_minimal_in_any_order():
    """Games started before issue 32: card sets named sorted, playable in any order, none superfluous."""
    state = pirate_at(hand(start(4, ("canarias", "porto")), 0, "D18", "I33", "D02"), "alexandria", 0)
    state = replace(state, rules=1)
    legal = GAME.legal_commands(state, 0)
    pairs = [c for c in legal if isinstance(c, MovePirate) and len(c.cards) == 2]
    assert MovePirate(to="porto", space=0, cards=("D02", "D18")) in pairs
    assert all(c.to not in ("athina", "tunis", "napoli") for c in pairs)  # one card suffices there
    moved, _ = act(state, 0, MovePirate(to="porto", space=0, cards=("D02", "D18")))
    assert moved.pirate == "porto"
    redundant = MovePirate(to="tunis", space=0, cards=("D02", "D18"))  # D18 alone reaches Tunis
    assert refused(state, 0, redundant) == "elcapitan.pirate_card_not_needed"
    unsorted = MovePirate(to="porto", space=0, cards=("D18", "D02"))
    assert refused(state, 0, unsorted) == "elcapitan.pirate_cards_unsorted"
    state = pirate_at(hand(start(4, ("canarias", "porto")), 0, "D09", "D11", "I26"), "alexandria", 0)
    state = replace(state, rules=1)
    legal = [c for c in GAME.legal_commands(state, 0) if isinstance(c, MovePirate) and c.to == "porto"]
    assert {c.cards for c in legal if c.cards} == {("D09", "D11", "I26")}
    moved, _ = act(state, 0, MovePirate(to="porto", space=1, cards=("D09", "D11", "I26")))
    assert moved.pirate == "porto"
    superfluous = MovePirate(to="valencia", space=0, cards=("D09", "D11", "I26"))
    assert refused(state, 0, superfluous) == "elcapitan.pirate_card_not_needed"


def test_pirate_moves_with_cards_one_per_target_and_space_whatever_the_hand():
    # Issue 32: a 21-card hand listed 3,330 pirate moves and took 58 s. Now one move with cards per
    # target and space: at most 11 targets × 3 spaces, whatever the hand.
    cards = (*(c.id for c in data.DESTINATION_CARDS), "I26", "I34", "I35")
    state = pirate_at(hand(start(4, ALL), 0, *cards), "alexandria", 0)
    assert len(state.players[0].hand) == 21
    legal = GAME.legal_commands(state, 0)
    moves = [c for c in legal if isinstance(c, MovePirate) and c.cards]
    assert len({(c.to, c.space) for c in moves}) == len(moves) <= 11 * 3
    assert len(legal) <= 200
    for move in moves:
        assert act(state, 0, move)[0].pirate == move.to
