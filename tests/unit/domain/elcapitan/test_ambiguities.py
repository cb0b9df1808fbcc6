"""Decisions on the ambiguities of elcapitan.md §12 that no other test names (each cites its number),
and the data module's confidence marks."""

from __future__ import annotations

from msgspec.structs import replace

from domain.elcapitan import GAME, data
from domain.elcapitan.commands import BuildWarehouse, EndTurn, MovePirate, Sail, TakeLoan
from domain.elcapitan.rules.chain import next_sites, value
from domain.elcapitan.rules.payday import fortress_payouts, majority_payouts, payday
from domain.elcapitan.state import EMPTY

from .helpers import act, chain, city, dock, hand, player, set_city, start

RED, GREEN, YELLOW, BLUE = 0, 1, 2, 3


def test_every_printed_table_is_marked_confirmed_or_proposed():
    assert set(data.CONFIDENCE.values()) <= {"confirmed", "proposed"}
    for table in data.CONFIDENCE:
        assert hasattr(data, table)
    assert data.DATA_CONFIDENCE == "proposed"


def test_ambiguity_02_the_extended_ten_florin_loan_costs_sixteen():
    ten = next(k for k in data.LOANS if k.amount == 10)
    assert (ten.repay, ten.repay_extended) == (12, 16)


def test_ambiguity_03_money_is_a_plain_integer_and_the_bank_never_runs_out():
    state = start(5)
    for name in [c.name for c in data.MAIN_CITIES]:
        state = chain(state, name, {s: RED for s in (1, 2, 3)} | {s: GREEN for s in range(4, 10)})
    held = payday(state)
    assert held.proliferation[RED] == 60 and held.majorities[GREEN] > 111  # more than all printed coins


def test_ambiguity_04_no_shut_down_once_site_twelve_is_built():
    state = chain(start(3), "tunis", {s: s % 3 for s in range(4, 13)}, frontier=12)
    state = dock(replace(state, current=0), 0, "tunis")
    assert next_sites(city(state, "tunis")) == (3,)
    _, events = act(state, 0, BuildWarehouse(site=3))
    assert not [e for e in events if type(e).__name__ == "WarehouseShutDown"]


def test_ambiguity_13_after_site_twelve_the_last_space_pays_while_the_front_is_refilled():
    state = chain(start(4), "marseille", {s: s % 4 for s in range(3, 13)}, frontier=12)
    assert value(city(state, "marseille")) == 16
    state = chain(state, "marseille", {s: s % 4 for s in range(2, 13)}, frontier=12)
    assert value(city(state, "marseille")) == 16


def test_ambiguity_28_off_board_fortresses_follow_the_standard_rule_and_porto_has_one_site():
    state = chain(start(4, ("porto",)), "porto", {s: s % 4 for s in range(1, 6)})
    state = chain(state, "tunis", {s: s % 4 for s in range(1, 5)})
    state = set_city(state, "porto", fortresses=(GREEN,))
    v = value(city(state, "porto"))
    assert len(city(state, "porto").fortresses) == 1
    assert fortress_payouts(state)[GREEN] == v  # Porto holds the most warehouses: full value
    state = chain(state, "tunis", {s: s % 4 for s in range(1, 8)})
    assert fortress_payouts(state)[GREEN] == v // 2


def test_ambiguity_30_two_players_neutral_warehouse_in_lisboa_earns_nothing():
    state = dock(start(2, ("lisboa",)), 0, "lisboa")
    _, events = act(state, 0, BuildWarehouse(site=2, neutral=True))
    assert not [e for e in events if type(e).__name__ == "ImmediatePaymentReceived"]
    _, events = act(state, 0, BuildWarehouse(site=2))
    assert [e.amount for e in events if type(e).__name__ == "ImmediatePaymentReceived"] == [4]


def test_ambiguity_31_porto_removals_count_as_built_for_the_phase_end():
    state = chain(start(4, ("porto",)), "porto", {1: RED, 2: GREEN, 3: YELLOW, 4: BLUE, 5: GREEN})
    state = player(state, RED, warehouses=0, fortresses=0)
    state = dock(replace(state, current=YELLOW), YELLOW, "porto")
    state, _ = act(state, YELLOW, BuildWarehouse(site=6))
    assert state.removed[RED] == 1 and city(state, "porto").sites[0] == EMPTY
    state, events = act(state, YELLOW, EndTurn())
    assert [e.seat for e in events if type(e).__name__ == "PhaseEndAnnounced"] == [RED]


def test_ambiguity_33_at_most_one_pirate_move_per_turn():
    state = start(4, ("canarias",))
    state, _ = act(state, 0, MovePirate(to="tunis", space=0))
    assert not [c for c in GAME.legal_commands(state, 0) if isinstance(c, MovePirate)]


def test_ambiguity_34_a_destination_card_moves_the_pirate_like_a_ship():
    state = hand(start(4, ("canarias",)), 0, "D18")  # Alexandria, 3 seals
    legal = GAME.legal_commands(state, 0)
    assert MovePirate(to="alexandria", space=0, cards=("D18",)) in legal  # as a destination
    assert MovePirate(to="napoli", space=0, cards=("D18",)) in legal  # 3 seals from Canarias
    assert MovePirate(to="athina", space=0, cards=("D18",)) not in legal  # 4 steps away


def test_decision_destination_card_never_sails_to_the_city_the_ship_is_in():
    state = hand(dock(start(4), 0, "marseille", 1), 0, "D01")
    assert Sail(card="D01", to="marseille") not in GAME.legal_commands(state, 0)


def test_decision_no_loan_while_the_free_pirate_move_is_owed():
    state = replace(hand(dock(start(4, ("canarias",)), 0, "tanger"), 0, "D13"), round=2)
    state, _ = act(state, 0, Sail(card="D13", to="canarias"))
    assert TakeLoan(amount=10) not in GAME.legal_commands(state, 0)


def test_decision_majority_payout_of_an_empty_city_is_nothing():
    state = start(4)
    assert majority_payouts(state, city(state, "tunis")) == (0, 0, 0, 0)
