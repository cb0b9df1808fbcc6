"""The expansion cities (rulebook "Regeln für die Erweiterungen"): sailing off the board, Porto, Lisboa.
Islas Canarias and its pirate: ``test_expansion_pirate.py``.

Colours in 4-player examples: 0 Red, 1 Green, 2 Yellow, 3 Blue.
"""

from __future__ import annotations

from msgspec.structs import replace

from domain.elcapitan import GAME, data
from domain.elcapitan.commands import (
    BuildFortress,
    BuildWarehouse,
    ReopenWarehouse,
    Sail,
)
from domain.elcapitan.rules.payday import majority_payouts, proliferation

from .helpers import act, build, chain, city, dock, hand, player, refused, set_city, start

RED, GREEN, YELLOW, BLUE = 0, 1, 2, 3
ALL = ("porto", "lisboa", "canarias")


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
