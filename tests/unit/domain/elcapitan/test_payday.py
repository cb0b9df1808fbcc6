"""Payday (rulebook "Zahltag": Verbreitung, Bonus, Majorität, Festungen) and its worked examples.

Colours in 4-player examples: 0 Red, 1 Green, 2 Yellow, 3 Blue.
"""

from __future__ import annotations

from msgspec.structs import replace

from domain.elcapitan import data
from domain.elcapitan.commands import BuildWarehouse, EndTurn
from domain.elcapitan.rules.chain import ranking, value
from domain.elcapitan.rules.payday import fortress_payouts, majority_payouts, payday, proliferation

from .helpers import act, chain, city, dock, player, set_city, start

RED, GREEN, YELLOW, BLUE = 0, 1, 2, 3
ALL_NINE = [c.name for c in data.MAIN_CITIES]


def test_example_majority_tie_pays_20_and_10_and_a_red_house_would_lead():
    # Green and Blue hold the most; Green's first house comes before Blue's.
    state = chain(start(4), "marseille", {1: RED, 2: GREEN, 3: BLUE, 4: GREEN, 5: BLUE})
    marseille = city(state, "marseille")
    assert value(marseille) == 20
    assert majority_payouts(state, marseille) == (0, 20, 0, 10)
    # "If Red built the next warehouse, Red would be first and Green second" (ranking only: under the
    # proposed layout site 6 is dark and a real build there would also shut Red's site-1 house down).
    more = chain(state, "marseille", {1: RED, 2: GREEN, 3: BLUE, 4: GREEN, 5: BLUE, 6: RED})
    assert [c for c, _ in ranking(city(more, "marseille"))][:2] == [RED, GREEN]


def test_example_majority_three_way_tie_pays_16_8_0():
    sites = {3: RED, 4: BLUE, 5: YELLOW, 6: GREEN, 7: RED, 8: BLUE, 9: YELLOW, 10: RED, 11: BLUE, 12: YELLOW}
    state = chain(start(4), "marseille", sites, frontier=12)
    state = set_city(state, "marseille", closed=(BLUE,))  # Blue's shut-down house does not count
    marseille = city(state, "marseille")
    assert value(marseille) == 16
    assert majority_payouts(state, marseille) == (16, 0, 0, 8)


def test_example_rounding_down_fifteen_pays_seven():
    state = chain(start(4), "venezia", {1: RED, 2: GREEN, 3: RED, 4: GREEN, 5: RED})
    assert value(city(state, "venezia")) == 15
    assert majority_payouts(state, city(state, "venezia")) == (15, 7, 0, 0)


def test_example_fortress_pays_the_second_rank_amount_10():
    state = chain(start(4), "marseille", {1: RED, 2: GREEN, 3: BLUE, 4: GREEN, 5: BLUE})
    state = chain(state, "tunis", {s: s % 4 for s in range(1, 8)})  # another city with more warehouses
    state = set_city(state, "marseille", fortresses=(GREEN, RED))
    assert fortress_payouts(state) == (10, 10, 0, 0)


def test_example_fortress_payout_16_german_text_stands_ambiguity_01():
    sites = {3: RED, 4: BLUE, 5: YELLOW, 6: GREEN, 7: RED, 8: BLUE, 9: YELLOW, 10: RED, 11: BLUE, 12: YELLOW}
    state = chain(start(4), "marseille", sites, frontier=12)
    state = chain(state, "napoli", {s: s % 4 for s in range(1, 11)})  # ten as well: both are "the most"
    state = set_city(state, "marseille", fortresses=(GREEN, RED))
    # Ambiguity 1: the German text pays 16 (the city's full value), the English caption's 20 is wrong.
    assert fortress_payouts(state) == (16, 16, 0, 0)


def test_proliferation_chart_counts_cities_with_an_operating_warehouse():
    state = start(4)
    for name in ALL_NINE[:4]:
        state = chain(state, name, {1: RED})
    for name in ALL_NINE:
        state = chain(state, name, {1: GREEN}) if name not in ALL_NINE[:4] else state
    assert proliferation(state) == (10, 15, 0, 0)  # four cities pay 10; five pay 15 (proposed)
    assert data.PROLIFERATION[3] == 5 and data.PROLIFERATION[9] == 60


def test_ambiguity_22_one_or_two_cities_pay_nothing():
    state = chain(chain(start(4), "tunis", {1: RED}), "napoli", {1: RED})
    assert proliferation(state)[RED] == 0


def test_bonus_cards_go_to_the_first_second_and_third_in_nine_cities_and_are_kept():
    state = start(4)
    for name in ALL_NINE[:-1]:
        state = chain(state, name, {1: RED})
    state = dock(state, RED, ALL_NINE[-1])
    state, events = act(state, RED, BuildWarehouse(site=1))
    assert [e.amount for e in events if type(e).__name__ == "BonusCardTaken"] == [15]
    assert state.bonus_left == (10, 5) and state.players[RED].bonus == 15
    state = chain(state, "tunis", {})  # shut down / gone: the card is kept
    assert state.players[RED].bonus == 15
    held = replace(state, phase=3)
    assert payday(held).bonuses[RED] == 15
    assert payday(replace(state, phase=1)).bonuses[RED] == 0  # paid only at the third payday


def test_phase_end_the_round_is_finished_then_payday():
    state = start(4)
    state = player(state, 1, warehouses=1, fortresses=0)
    state = dock(replace(state, current=1), 1, "tunis")
    state, events = act(state, 1, BuildWarehouse(site=1))
    state, events = act(state, 1, EndTurn())
    assert [type(e).__name__ for e in events][-2:] == ["PhaseEndAnnounced", "TurnStarted"]
    assert state.phase_ending and state.current == 2
    for seat in (2, 3):
        state = dock(state, seat, "napoli" if seat == 2 else "athina")
        state, _ = act(state, seat, BuildWarehouse(site=1))
        state, events = act(state, seat, EndTurn())
    assert "PaydayHeld" in [type(e).__name__ for e in events]
    assert state.stage in ("loans", "choose_start") and state.phase == 1


def test_example_four_cities_pay_10_three_pay_5_nine_pay_60():
    state = start(4)
    for index, name in enumerate(ALL_NINE):
        sites = {1: YELLOW}
        if index < 4:
            sites[2] = RED
        if index < 3:
            sites[3] = GREEN
        state = chain(state, name, sites)
    assert proliferation(state)[:3] == (10, 5, 60)
