"""The expansion cities (rulebook "Regeln für die Erweiterungen": Porto, Lisboa, Islas Canarias).

Colours in 4-player examples: 0 Red, 1 Green, 2 Yellow, 3 Blue.
"""

from __future__ import annotations

import pytest
from msgspec.structs import replace

from domain.elcapitan import GAME, data
from domain.elcapitan.commands import (
    BuildFortress,
    BuildWarehouse,
    EndTurn,
    MovePirate,
    ReopenWarehouse,
    Sail,
)
from domain.elcapitan.rules.payday import majority_payouts, proliferation
from domain.elcapitan.rules.pirate import protection
from domain.elcapitan.state import EMPTY, PIRATE
from domain.engine import RuleViolation, rng_for

from .helpers import act, chain, city, dock, hand, pirate_at, player, set_city, start

RED, GREEN, YELLOW, BLUE = 0, 1, 2, 3
ALL = ("porto", "lisboa", "canarias")


def refused(state, seat, command) -> str:
    with pytest.raises(RuleViolation) as err:
        GAME.decide(state, seat, command, rng_for(b"refused", 1))
    assert command not in GAME.legal_commands(state, seat)
    return err.value.code


def build(state, seat, site, name):
    state = dock(replace(state, current=seat, turn=replace(state.turn, acted=False)), seat, name)
    return act(state, seat, BuildWarehouse(site=site))


# --- sailing off the board -------------------------------------------------------------------------------


def test_example_off_board_cities_are_reached_only_by_sea_route_seals_from_a_city():
    state = start(4, ALL)
    from_valencia = hand(dock(state, 0, "valencia"), 0, "D09")  # Napoli, 1 seal
    assert Sail(card="D09", to="lisboa") in GAME.legal_commands(from_valencia, 0)
    from_napoli = hand(dock(state, 0, "napoli"), 0, "D03")  # Venezia, 2 seals
    assert Sail(card="D03", to="lisboa") in GAME.legal_commands(from_napoli, 0)
    one_seal = hand(dock(state, 0, "napoli"), 0, "D09")
    assert refused(one_seal, 0, Sail(card="D09", to="lisboa")) == "elcapitan.unreachable"
    from_bank = hand(player(state, 0, ship="bank"), 0, "D04")
    assert refused(from_bank, 0, Sail(card="D04", to="lisboa")) == "elcapitan.unreachable"
    at_start = hand(state, 0, "D04")
    assert refused(at_start, 0, Sail(card="D04", to="lisboa")) == "elcapitan.unreachable"


def test_example_from_constantinople_four_seals_or_an_interconnection_first():
    state = hand(dock(start(4, ALL), 0, "constantinople"), 0, "I16", "D08")  # Const.–Valencia; 3 seals
    assert refused(state, 0, Sail(card="D08", to="lisboa")) == "elcapitan.unreachable"
    state, _ = act(state, 0, Sail(card="I16", to="valencia"))
    state, _ = act(state, 0, Sail(card="D08", to="lisboa"))
    assert state.players[0].ship == "lisboa"


def test_ambiguity_27_leaving_an_off_board_city_needs_a_destination_or_sea_route_card():
    state = hand(dock(start(4, ALL), 0, "porto"), 0, "I01", "D04")
    assert refused(state, 0, Sail(card="I01", to="venezia")) == "elcapitan.unreachable"
    assert Sail(card="D04", to="venezia") in GAME.legal_commands(state, 0)
    assert Sail(card="D04", to="canarias") in GAME.legal_commands(state, 0)  # Porto → Canarias: 2 seals


def test_ambiguity_26_missing_tiles_leave_their_squares_passable():
    state = hand(dock(start(4, ("porto", "canarias")), 0, "porto"), 0, "D03")  # 2 seals
    assert Sail(card="D03", to="canarias") in GAME.legal_commands(state, 0)
    assert state.city_index("lisboa") == -1


def test_proliferation_ten_eleven_twelve_cities_pay_75_90_110():
    state = start(4, ALL)
    names = [c.name for c in state.cities]
    for count, pay in ((10, 75), (11, 90), (12, 110)):
        s = state
        for name in names[:count]:
            s = chain(s, name, {1: RED})
        assert proliferation(s)[RED] == pay


def test_ambiguity_37_bonus_cards_count_any_nine_of_the_cities():
    state = start(4, ALL)
    for name in [c.name for c in state.cities][1:9]:
        state = chain(state, name, {1: RED})
    state = chain(state, "marseille", {})
    state, events = build(state, RED, 1, "porto")
    assert [e.amount for e in events if type(e).__name__ == "BonusCardTaken"] == [15]


def test_off_board_majority_every_owner_gets_half_the_first_gets_all():
    state = chain(start(4, ALL), "porto", {1: RED, 2: GREEN, 3: RED, 4: YELLOW})
    v = data.CITY_BY_NAME["porto"].track[4]
    assert majority_payouts(state, city(state, "porto")) == (v, v // 2, v // 2, 0)


def test_ambiguity_29_two_players_off_board_neutral_first_pays_nothing():
    state = chain(start(2, ALL), "porto", {1: 2, 2: 1})
    assert majority_payouts(state, city(state, "porto")) == (0, 0)
    state = chain(state, "porto", {1: 0, 2: 1, 3: 3})
    v = data.CITY_BY_NAME["porto"].track[3]
    assert majority_payouts(state, city(state, "porto")) == (v, v // 2)


# --- Porto -------------------------------------------------------------------------------------------------


def test_porto_three_harbour_spaces_and_one_fortress_site():
    state = start(4, ("porto",))
    state = dock(dock(dock(state, 1, "porto", 0), 2, "porto", 1), 3, "porto", 2)
    assert city(state, "porto").harbours == (1, 2, 3)
    _, events = act(replace(state, current=3), 3, BuildWarehouse(site=1))
    assert events[0].cost == 6
    state, _ = act(replace(state, current=1), 1, BuildFortress())
    assert refused(replace(state, current=2, turn=replace(state.turn, acted=False)), 2, BuildFortress()) == (
        "elcapitan.no_fortress_site"
    )


def test_porto_shut_down_warehouses_leave_the_game_for_good():
    state = chain(start(4, ("porto",)), "porto", {1: RED, 2: GREEN, 3: YELLOW, 4: BLUE, 5: GREEN})
    state, events = build(state, YELLOW, 6, "porto")
    shut = [e for e in events if type(e).__name__ == "WarehouseShutDown"]
    assert shut[0].removed and city(state, "porto").closed == () and state.removed[RED] == 1
    red = dock(replace(state, current=RED), RED, "porto", 1)
    assert not [c for c in GAME.legal_commands(red, RED) if isinstance(c, ReopenWarehouse)]


# --- Lisboa ------------------------------------------------------------------------------------------------


def test_lisboa_harbour_costs_nothing_or_one_florin():
    state = dock(dock(start(4, ("lisboa",)), 0, "lisboa", 0), 1, "lisboa", 1)
    _, events = act(state, 0, BuildWarehouse(site=1))
    assert events[0].cost == 0
    _, events = act(replace(state, current=1), 1, BuildWarehouse(site=1))
    assert events[0].cost == 1


def test_example_lisboa_immediate_payment_4_4_3():
    state = start(4, ("lisboa",))
    state, events = build(state, YELLOW, 2, "lisboa")
    assert [e.amount for e in events if type(e).__name__ == "ImmediatePaymentReceived"] == [4]
    state, events = build(state, RED, 1, "lisboa")
    assert [e.amount for e in events if type(e).__name__ == "ImmediatePaymentReceived"] == [4]
    state, events = build(state, BLUE, 3, "lisboa")
    assert [e.amount for e in events if type(e).__name__ == "ImmediatePaymentReceived"] == [3]


def test_lisboa_has_only_two_shut_down_sites():
    assert data.CITY_BY_NAME["lisboa"].dark_sites == (7, 10)
    assert data.CITY_BY_NAME["lisboa"].triangle_site is None
    state = chain(start(3, ("lisboa",)), "lisboa", {1: 0, 2: 1, 3: 2, 4: 0})
    _, events = build(state, 1, 5, "lisboa")  # no triangle in Lisboa, even with 3 players
    assert not [e for e in events if type(e).__name__ == "WarehouseShutDown"]


def test_ambiguity_30_reopening_in_lisboa_earns_no_immediate_payment():
    state = chain(start(4, ("lisboa",)), "lisboa", {2: 1, 3: 2})
    state = set_city(state, "lisboa", closed=(0,), frontier=3)
    state = dock(state, 0, "lisboa")
    _, events = act(state, 0, ReopenWarehouse(site=4))
    assert not [e for e in events if type(e).__name__ == "ImmediatePaymentReceived"]


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
    assert refused(state, 0, MovePirate(to="tunis", space=0)) == "elcapitan.pirate_already_moved"
    state, _ = act(state, 0, EndTurn())


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


def test_pirate_moved_with_two_cards_when_one_cannot_reach():
    # Alexandria → Porto is five steps: no single card reaches; the Alexandria card (3 seals) to Valencia
    # and then the Marseille card (3 seals) to Porto does.
    state = pirate_at(hand(start(4, ("canarias", "porto")), 0, "D18", "I33", "D02"), "alexandria", 0)
    legal = GAME.legal_commands(state, 0)
    pairs = [c for c in legal if isinstance(c, MovePirate) and len(c.cards) == 2]
    assert MovePirate(to="porto", space=0, cards=("D02", "D18")) in pairs
    assert not [c for c in legal if isinstance(c, MovePirate) and c.to == "porto" and len(c.cards) == 1]
    assert all(c.to not in ("athina", "tunis", "napoli") for c in pairs)  # one card suffices there
    moved, events = act(state, 0, MovePirate(to="porto", space=0, cards=("D02", "D18")))
    assert moved.pirate == "porto" and events[0].cost == 0 and len(events) == 1
    assert {"D18", "D02"} <= set(moved.destinations.discard)
    redundant = MovePirate(to="tunis", space=0, cards=("D02", "D18"))  # D18 alone reaches Tunis
    assert refused(state, 0, redundant) == "elcapitan.pirate_card_not_needed"
    unsorted = MovePirate(to="porto", space=0, cards=("D18", "D02"))
    assert refused(state, 0, unsorted) == "elcapitan.pirate_cards_unsorted"


def test_pirate_moved_with_any_number_of_cards_three_when_two_cannot_reach():
    # "eine oder mehrere eigene Segelkarten": Alexandria → Valencia by I26, then one seal (D09) and one
    # more seal (D11) to Porto; no one or two of these cards reach Porto.
    state = pirate_at(hand(start(4, ("canarias", "porto")), 0, "D09", "D11", "I26"), "alexandria", 0)
    legal = [c for c in GAME.legal_commands(state, 0) if isinstance(c, MovePirate) and c.to == "porto"]
    assert {c.cards for c in legal if c.cards} == {("D09", "D11", "I26")}
    moved, events = act(state, 0, MovePirate(to="porto", space=1, cards=("D09", "D11", "I26")))
    assert moved.pirate == "porto" and events[0].cost == 0 and events[0].cards == ("D09", "D11", "I26")
    assert moved.players[0].hand == () and {"D09", "D11"} <= set(moved.destinations.discard)
    assert "I26" in moved.interconnections.discard
    superfluous = MovePirate(to="valencia", space=0, cards=("D09", "D11", "I26"))
    assert refused(state, 0, superfluous) == "elcapitan.pirate_card_not_needed"


def test_pirate_moves_with_cards_stay_few_with_a_large_hand():
    # Only minimal card sets are offered, so a hand of twelve cards gives a bounded list.
    cards = ("D01", "D03", "D05", "D09", "D11", "D13", "D15", "I26", "I34", "I35", "I01", "I22")
    state = pirate_at(hand(start(4, ("canarias", "porto", "lisboa")), 0, *cards), "alexandria", 0)
    moves = [c for c in GAME.legal_commands(state, 0) if isinstance(c, MovePirate) and c.cards]
    assert 0 < len(moves) < 2000
    assert max(len(c.cards) for c in moves) >= 2
    for move in moves[:: max(1, len(moves) // 40)]:
        assert act(state, 0, move)[0].pirate == move.to
