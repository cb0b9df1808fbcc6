"""Set-up and the board (rulebook "Spielvorbereitung", "Der Spielplan"; elcapitan.md §2–§4)."""

from __future__ import annotations

import pytest

from domain.elcapitan import GAME, data
from domain.elcapitan.commands import TakeLoan
from domain.elcapitan.rules.board import distance, loans_available
from domain.elcapitan.rules.chain import value
from domain.elcapitan.state import EMPTY
from domain.engine import RuleViolation

from .helpers import act, chain, city, later_round, start


@pytest.mark.parametrize("seats", [2, 3, 4, 5])
def test_setup_six_warehouses_one_fortress_twenty_florins_each(seats):
    state = start(seats)
    for p in state.players:
        assert (p.money, p.warehouses, p.fortresses) == (20, 6, 1)
        assert p.neutral == (2 if seats == 2 else 0)
        assert p.ship == "" and p.hand == () and p.loans == ()


def test_setup_two_decks_shuffled_with_four_and_six_cards_on_display():
    state = start(4)
    d, i = state.destinations, state.interconnections
    assert len(d.display) == 4 and len(d.draw) == 14 and d.discard == ()
    assert len(i.display) == 6 and len(i.draw) == 30
    assert sorted(d.display + d.draw) == sorted(c.id for c in data.DESTINATION_CARDS)
    assert sorted(i.display + i.draw) == sorted(c.id for c in data.INTERCONNECTION_CARDS)
    other = start(4, seed=b"another seed")
    assert other.destinations.draw != d.draw or other.interconnections.draw != i.draw


def test_setup_loan_stacks_of_eighteen_tens_and_twelve_sixteens_and_three_bonus_cards():
    state = start(3)
    assert loans_available(state, 10) == 18 and loans_available(state, 16) == 12
    assert state.bonus_left == (15, 10, 5)


def test_setup_announces_that_the_board_numbers_are_the_proposed_set():
    events = GAME.setup(3, {}, b"s")
    assert events[0].data == "proposed"


def test_setup_refuses_unknown_and_repeated_expansions():
    for bad in (["madeira"], ["porto", "porto"], "porto"):
        with pytest.raises(RuleViolation) as err:
            GAME.setup(3, {"expansions": bad}, b"s")
        assert err.value.code == "elcapitan.bad_option"


def test_board_is_a_three_by_three_grid_of_nine_cities():
    squares = {(c.row, c.col) for c in data.MAIN_CITIES}
    assert squares == {(r, c) for r in (1, 2, 3) for c in (1, 2, 3)}
    assert distance("valencia", "lisboa") == 1
    assert {distance(c, "lisboa") for c in ("napoli", "marseille", "tanger")} == {2}
    assert distance("constantinople", "lisboa") == distance("alexandria", "lisboa") == 4
    assert distance("porto", "canarias") == 2


def test_board_cities_print_harbour_costs_fortress_costs_and_u_track_incomes():
    marseille = data.CITY_BY_NAME["marseille"]
    assert marseille.harbours == (4, 5) and marseille.fortresses == (8, 10)
    for c in data.MAIN_CITIES:
        assert len(c.track) == 13 and c.track[0] == 0
        assert len(c.harbours) == 2 and len(c.fortresses) == 2
        assert c.fortresses == tuple(2 * h for h in c.harbours)


def test_board_shut_down_sites_and_the_triangle_for_two_or_three_players():
    for c in data.MAIN_CITIES:
        assert c.dark_sites == (6, 8, 10) and c.triangle_site == 5


def test_board_the_bank_harbour_holds_any_number_of_ships():
    state = later_round(start(5))
    for _ in range(5):
        state, _ = act(state, state.current, TakeLoan(amount=10))
    assert all(p.ship == "bank" for p in state.players)
    assert [p.money for p in state.players] == [30] * 5


def test_ambiguity_09_empty_city_is_worth_nothing_and_value_is_read_after_the_highest_site():
    state = start(4)
    assert value(city(state, "marseille")) == 0
    state = chain(state, "marseille", {2: 0})
    assert value(city(state, "marseille")) == 8  # ambiguity 9: V after the highest occupied site
    assert city(state, "marseille").harbours == (EMPTY, EMPTY)
