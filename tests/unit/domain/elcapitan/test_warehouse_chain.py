"""The warehouse chain (rulebook "Warenhaus bauen", "Warenhaus schließen", "Wiedereröffnung", "Der letzte
Bauplatz ist mit einem Warenhaus bebaut") and the fortress rules ("Festung bauen").

Colours in 4-player examples: 0 Red, 1 Green, 2 Yellow, 3 Blue.
"""

from __future__ import annotations

from msgspec.structs import replace

from domain.elcapitan import GAME
from domain.elcapitan.commands import BuildFortress, BuildWarehouse, EndTurn, ReopenWarehouse
from domain.elcapitan.rules.chain import next_sites
from domain.elcapitan.rules.payday import majority_payouts, proliferation
from domain.elcapitan.state import EMPTY

from .helpers import act, chain, city, dock, player, refused, set_city, start

RED, GREEN, YELLOW, BLUE = 0, 1, 2, 3


def build(state, seat, site, city_name="marseille"):
    state = dock(replace(state, current=seat, turn=replace(state.turn, acted=False)), seat, city_name)
    state, events = act(state, seat, BuildWarehouse(site=site))
    return replace(state, turn=replace(state.turn, acted=False)), events


def test_first_builder_chooses_site_zero_or_one_and_the_second_fills_the_other():
    state = dock(start(4), RED, "marseille")
    assert {c.site for c in GAME.legal_commands(state, RED) if isinstance(c, BuildWarehouse)} == {1, 2}
    state, _ = build(state, RED, 2)
    assert next_sites(city(state, "marseille")) == (1,)
    state, _ = build(state, GREEN, 1)
    assert next_sites(city(state, "marseille")) == (3,)
    assert refused(
        dock(replace(state, current=YELLOW), YELLOW, "marseille"), YELLOW, BuildWarehouse(site=5)
    ) == ("elcapitan.wrong_site")


def test_example_greens_four_warehouses_three_in_a_row_must_leave_marseille():
    state = start(4)
    state, _ = build(state, RED, 2)  # Red chose the second site, for 4 Florin
    for site in (1, 3, 4, 5):
        state, _ = build(state, GREEN, site)
    assert city(state, "marseille").sites[:5] == (GREEN, RED, GREEN, GREEN, GREEN)
    green = dock(replace(state, current=GREEN), GREEN, "marseille")
    assert refused(green, GREEN, BuildWarehouse(site=6)) == "elcapitan.too_many_in_a_row"
    state, _ = build(state, BLUE, 6)
    state, _ = build(state, GREEN, 7)  # after another player built there, Green may build again
    assert city(state, "marseille").sites[6] == GREEN


def test_the_last_space_is_never_built():
    state = chain(start(4), "marseille", {s: (s - 1) % 4 for s in range(1, 13)})
    assert next_sites(city(state, "marseille")) == ()
    assert refused(dock(state, 0, "marseille"), 0, BuildWarehouse(site=13)) == "elcapitan.wrong_site"


def test_example_shut_down_and_reopen_of_reds_warehouse():
    state = start(4)
    state, _ = build(state, RED, 2)
    for site in (1, 3, 4, 5):
        state, _ = build(state, GREEN, site)
    state, events = build(state, YELLOW, 6)  # Yellow on the first dark site: the first house closes
    shut = [e for e in events if type(e).__name__ == "WarehouseShutDown"]
    assert shut and (shut[0].site, shut[0].colour) == (1, GREEN)
    assert city(state, "marseille").closed == (GREEN,)
    state, _ = build(state, RED, 7)
    state, events = build(state, BLUE, 8)  # Blue on the second dark site: the second house (Red) closes
    assert [(e.site, e.colour) for e in events if type(e).__name__ == "WarehouseShutDown"] == [(2, RED)]
    red = dock(player(replace(state, current=RED), RED, money=0), RED, "marseille")
    red, _ = act(red, RED, ReopenWarehouse(site=9))  # free, behind the last house built
    assert city(red, "marseille").sites[8] == RED and red.players[RED].money == 0
    assert city(red, "marseille").closed == (GREEN,)
    assert refused(red, RED, BuildFortress()) == "elcapitan.already_acted"


def test_ambiguity_07_shut_down_warehouse_counts_for_nothing():
    state = chain(start(4), "marseille", {2: 1, 3: 1, 4: 2, 5: 2, 6: 3}, frontier=6)
    state = set_city(state, "marseille", closed=(0,))
    assert majority_payouts(state, city(state, "marseille"))[0] == 0
    assert proliferation(state)[0] == 0


def test_reopening_is_possible_at_once_when_the_ship_is_still_in_the_city():
    state = start(4)
    state = chain(state, "tunis", {1: GREEN, 2: RED, 3: YELLOW, 4: BLUE, 5: RED})
    state = dock(state, GREEN, "tunis", 1)
    state, _ = build(state, BLUE, 6, "tunis")
    assert city(state, "tunis").closed == (GREEN,)
    green = replace(state, current=GREEN)
    assert ReopenWarehouse(site=7) in GAME.legal_commands(green, GREEN)


def test_example_backwards_building_green_may_build_on_8_but_not_on_4():
    sites = {4: GREEN, 5: GREEN, 6: RED, 7: BLUE, 8: YELLOW, 9: RED, 10: BLUE, 11: YELLOW, 12: RED}
    state = chain(start(4), "marseille", sites, frontier=12)
    assert next_sites(city(state, "marseille")) == (3,)
    state, _ = build(state, GREEN, 3)  # the space printed "8"
    assert city(state, "marseille").sites[2] == GREEN
    green = dock(replace(state, current=GREEN), GREEN, "marseille")
    assert refused(green, GREEN, BuildWarehouse(site=2)) == "elcapitan.too_many_in_a_row"  # the "4" space
    state, _ = build(state, YELLOW, 2)
    state, events = build(state, BLUE, 1)  # the "0" site is built last; no shut-down any more
    assert not [e for e in events if type(e).__name__ == "WarehouseShutDown"]
    assert next_sites(city(state, "marseille")) == ()


def test_example_three_red_at_the_end_may_still_build_at_the_front():
    sites = {4: GREEN, 5: BLUE, 6: YELLOW, 7: GREEN, 8: BLUE, 9: YELLOW, 10: RED, 11: RED, 12: RED}
    state = chain(start(4), "marseille", sites, frontier=12)
    red = dock(replace(state, current=RED), RED, "marseille")
    assert BuildWarehouse(site=3) in GAME.legal_commands(red, RED)


def test_full_city_of_twelve_sites_takes_no_more_and_shuts_down_nothing():
    sites = {s: s % 4 for s in range(2, 13)}
    state = chain(start(4), "tunis", sites, frontier=12)
    state, events = build(state, 1, 1, "tunis")
    assert not [e for e in events if type(e).__name__ == "WarehouseShutDown"]
    full = dock(replace(state, current=2), 2, "tunis")
    assert not [c for c in GAME.legal_commands(full, 2) if isinstance(c, BuildWarehouse)]


def test_triangle_site_shuts_down_only_with_two_or_three_players():
    for seats, expected in ((3, True), (4, False)):
        state = chain(start(seats), "tunis", {1: 0, 2: 1, 3: 0, 4: 1})
        state, events = build(state, 2, 5, "tunis")
        assert bool([e for e in events if type(e).__name__ == "WarehouseShutDown"]) is expected


def test_ambiguity_05_dark_site_shuts_the_foremost_operating_warehouse():
    state = chain(start(3), "tunis", {2: 1, 3: 0, 4: 1, 5: 2}, frontier=5)  # site 1 already vacated
    state, events = build(state, 0, 6, "tunis")
    assert [e.site for e in events if type(e).__name__ == "WarehouseShutDown"] == [2]


def test_ambiguity_08_row_limit_applies_to_reopening():
    state = chain(start(4), "tunis", {1: 2, 2: 0, 3: 0, 4: 0, 5: 1}, frontier=5)
    state = dock(replace(state, current=0), 0, "tunis")
    state = set_city(state, "tunis", sites=(EMPTY, 2, 3, 1, 2, 0, 0, 0, EMPTY, EMPTY, EMPTY, EMPTY),
                     frontier=8, closed=(0,))  # fmt: skip
    assert refused(state, 0, ReopenWarehouse(site=9)) == "elcapitan.too_many_in_a_row"


def test_ambiguity_12_reopening_on_a_dark_site_shuts_down_like_building():
    state = chain(start(4), "tunis", {1: 1, 2: 2, 3: 3, 4: 1, 5: 2, 6: 3, 7: 1}, frontier=7)
    state = set_city(state, "tunis", closed=(0,))
    state = dock(replace(state, current=0), 0, "tunis")
    state, events = act(state, 0, ReopenWarehouse(site=8))
    assert [e.site for e in events if type(e).__name__ == "WarehouseShutDown"] == [1]


def test_fortress_one_per_player_per_city_first_then_second_site_price():
    state = dock(start(4), 0, "marseille")
    state, events = act(state, 0, BuildFortress())
    assert (events[0].slot, events[0].cost) == (0, 8)
    state, _ = act(state, 0, EndTurn())
    again = dock(replace(player(state, 0, fortresses=1), current=0, turn=replace(state.turn, acted=False)), 0,
                 "marseille")  # fmt: skip
    assert refused(again, 0, BuildFortress()) == "elcapitan.one_fortress_per_city"
    state = dock(replace(state, current=1), 1, "marseille", 1)
    state, events = act(state, 1, BuildFortress())
    assert (events[0].slot, events[0].cost) == (1, 10)
    third = dock(replace(state, current=2, turn=replace(state.turn, acted=False)), 2, "tunis")
    third = dock(third, 2, "marseille", 0)
    assert refused(third, 2, BuildFortress()) == "elcapitan.no_fortress_site"


def test_ambiguity_10_the_fortress_goes_on_the_first_free_site():
    state = dock(start(4), 0, "tunis")
    assert [c for c in GAME.legal_commands(state, 0) if isinstance(c, BuildFortress)] == [BuildFortress()]
    _, events = act(state, 0, BuildFortress())
    assert events[0].slot == 0 and events[0].cost == 4
