"""A turn: buying, sailing, the one action, loans (rulebook "Kurzbeschreibung", "Die einzelnen Aktionen")."""

from __future__ import annotations

from msgspec.structs import replace

from domain.elcapitan import GAME
from domain.elcapitan.commands import BuildWarehouse, BuyCard, EndTurn, MovePirate, Sail, TakeLoan
from domain.elcapitan.state import EMPTY, Loan

from .helpers import act, chain, city, dock, hand, later_round, player, refused, start


def test_buy_any_number_of_displayed_cards_before_and_after_building():
    state = start(4)
    first, second = state.destinations.display[:2]
    state, _ = act(state, 0, BuyCard(card=first))
    state, _ = act(state, 0, BuyCard(card=second))
    assert state.players[0].hand == (first, second)
    state = dock(state, 0, "tunis")
    state, _ = act(state, 0, BuildWarehouse(site=1))
    link = state.interconnections.display[0]
    state, events = act(state, 0, BuyCard(card=link))
    assert link in state.players[0].hand and events[0].cost > 0


def test_display_is_refilled_after_each_turn():
    state = start(4)
    card = state.destinations.display[0]
    state, _ = act(state, 0, BuyCard(card=card))
    assert len(state.destinations.display) == 3
    state = dock(state, 0, "tunis")
    state, _ = act(state, 0, BuildWarehouse(site=1))
    state, _ = act(state, 0, EndTurn())
    assert len(state.destinations.display) == 4 and state.current == 1


def test_ambiguity_06_starting_the_game_needs_a_destination_card():
    state = hand(start(4), 0, "I04")  # Marseille–Napoli
    assert refused(state, 0, Sail(card="I04", to="napoli")) == "elcapitan.unreachable"
    state = hand(state, 0, "D10")  # Napoli, 2 seals
    assert refused(state, 0, Sail(card="D10", to="tunis")) == "elcapitan.unreachable"
    state, _ = act(state, 0, Sail(card="D10", to="napoli"))
    assert (state.players[0].ship, state.players[0].harbour) == ("napoli", 0)


def test_leaving_the_bank_needs_a_destination_card():
    state = hand(player(start(4), 0, ship="bank"), 0, "I04", "D02")
    assert refused(state, 0, Sail(card="I04", to="napoli")) == "elcapitan.unreachable"
    assert refused(state, 0, Sail(card="D02", to="venezia")) == "elcapitan.unreachable"
    state, _ = act(state, 0, Sail(card="D02", to="marseille"))
    assert state.players[0].ship == "marseille"


def test_example_marseille_card_three_seals_from_valencia_reaches_every_city():
    state = hand(dock(start(4), 0, "valencia"), 0, "D02")  # Marseille card with 3 seals
    reachable = {c.to for c in GAME.legal_commands(state, 0) if isinstance(c, Sail)}
    # From Valencia three seals reach every city (rulebook's illustration of the Marseille card).
    assert reachable == {"marseille", "venezia", "constantinople", "napoli", "athina", "tanger", "tunis",
                         "alexandria"}  # fmt: skip
    state = hand(dock(start(4), 0, "tanger"), 0, "D01")  # Marseille card with 1 seal
    reachable = {c.to for c in GAME.legal_commands(state, 0) if isinstance(c, Sail)}
    assert reachable == {"marseille", "valencia", "tunis"}


def test_interconnection_card_sails_between_its_two_cities_either_way():
    state = hand(dock(start(4), 0, "tanger"), 0, "I13")  # Venezia–Tanger, costs 3
    state, _ = act(state, 0, Sail(card="I13", to="venezia"))
    assert state.players[0].ship == "venezia"
    assert "I13" in state.interconnections.discard
    state = hand(dock(start(4), 0, "napoli"), 0, "I13")
    assert refused(state, 0, Sail(card="I13", to="venezia")) == "elcapitan.unreachable"


def test_example_venezia_tanger_card_costs_three():
    state = start(4)
    state = hand(state, 1, *state.interconnections.display)  # clear the way
    state = replace(state, interconnections=replace(state.interconnections, display=("I13",)))
    _, events = act(state, 0, BuyCard(card="I13"))
    assert events[0].cost == 3


def test_example_tanger_then_alexandria_several_cards_need_a_free_harbour_only_where_the_ship_stops():
    state = start(4)
    state = dock(dock(state, 1, "tanger", 0), 2, "tanger", 1)
    state = hand(state, 0, "D13", "I35")  # Tanger destination; Tanger–Alexandria
    state, events = act(state, 0, Sail(card="D13", to="tanger"))
    assert events[0].harbour == EMPTY  # full city: passed through, not stopped in
    assert refused(state, 0, BuildWarehouse(site=1)) == "elcapitan.not_in_harbour"
    state, _ = act(state, 0, Sail(card="I35", to="alexandria"))
    assert (state.players[0].ship, state.players[0].harbour) == ("alexandria", 0)


def test_harbour_space_one_then_two_and_the_dearer_ship_does_not_move_down():
    state = start(4)
    state = hand(hand(state, 0, "D02"), 1, "D01")
    state, _ = act(state, 0, Sail(card="D02", to="marseille"))
    state = player(state, 1, ship="bank")
    state = replace(state, current=1)
    state, _ = act(state, 1, Sail(card="D01", to="marseille"))
    assert state.players[1].harbour == 1
    state = dock(state, 0, "tunis")  # the first ship leaves Marseille
    assert city(state, "marseille").harbours == (EMPTY, 1) and state.players[1].harbour == 1
    state = replace(state, current=1)
    state, events = act(state, 1, BuildWarehouse(site=1))
    assert events[0].cost == 5


def test_example_marseille_build_costs_four_and_five():
    state = dock(dock(start(4), 0, "marseille", 0), 1, "marseille", 1)
    _, events = act(state, 0, BuildWarehouse(site=2))
    assert events[0].cost == 4
    _, events = act(replace(state, current=1), 1, BuildWarehouse(site=1))
    assert events[0].cost == 5


def test_exactly_one_action_per_turn():
    state = dock(start(4), 0, "tunis")
    state, _ = act(state, 0, BuildWarehouse(site=1))
    assert refused(state, 0, BuildWarehouse(site=2)) == "elcapitan.already_acted"
    assert refused(state, 0, Sail(card="D01", to="marseille")) in ("elcapitan.sail_after_action",)


def test_no_end_of_turn_without_an_action_when_one_is_possible():
    state = dock(start(4), 0, "tunis")
    assert refused(state, 0, EndTurn()) == "elcapitan.action_required"


def test_no_loan_in_the_first_round_of_the_game():
    state = start(4)
    assert refused(state, 0, TakeLoan(amount=10)) == "elcapitan.no_loan_in_first_round"
    state, _ = act(later_round(state), 0, TakeLoan(amount=16))
    assert state.players[0].money == 36 and state.players[0].ship == "bank"
    assert state.current == 1  # nothing else that turn: the next player follows at once


def test_ambiguity_11_sailing_to_the_bank_is_free_and_loan_turn_buys_nothing():
    state = later_round(dock(start(4), 0, "tunis"))
    card = state.destinations.display[0]
    bought, _ = act(state, 0, BuyCard(card=card))
    # ambiguity 11: after buying cards, a loan only for a player who cannot build
    assert refused(bought, 0, TakeLoan(amount=10)) == "elcapitan.loan_turn_buys_nothing"
    state, _ = act(state, 0, TakeLoan(amount=10))
    assert state.players[0].money == 30 and city(state, "tunis").harbours[0] == EMPTY


def test_player_who_cannot_build_must_sail_to_the_bank_and_take_a_loan():
    state = later_round(player(dock(start(4), 0, "marseille"), 0, money=2))
    state = chain(state, "marseille", {})
    legal = GAME.legal_commands(state, 0)
    assert not any(isinstance(c, BuildWarehouse) for c in legal)
    assert TakeLoan(amount=10) in legal and EndTurn() not in legal


def _all_loans_out(state):
    state = player(state, 1, loans=tuple(Loan(amount=10) for _ in range(18)))
    return player(state, 2, loans=tuple(Loan(amount=16) for _ in range(12)))


def test_buying_sailing_cards_is_voluntary():
    """„Kauf von Segelkarten: Diese Aktion ist freiwillig.“ With every loan card out and nothing to build,
    a player with money may end his turn without buying (issue 32; rules 1 refused it)."""
    state = _all_loans_out(later_round(player(dock(start(4), 0, "marseille"), 0, money=3)))
    legal = GAME.legal_commands(state, 0)
    assert any(isinstance(c, BuyCard) for c in legal)  # a card he could buy
    assert not any(isinstance(c, BuildWarehouse | TakeLoan | Sail) for c in legal)  # 4 Florin to build
    assert EndTurn() in legal
    passed, events = act(state, 0, EndTurn())
    assert events[0].passed and passed.current == 1 and passed.players[0].money == 3
    assert refused(replace(state, rules=1), 0, EndTurn()) == "elcapitan.action_required"


def test_at_the_start_of_the_game_a_destination_card_must_be_bought():
    """„Bei Spielbeginn müssen Sie mindestens eine Zielkarte kaufen, um Ihr Schiff ins Spiel zu bringen.“"""
    state = start(4)
    assert refused(state, 0, EndTurn()) == "elcapitan.action_required"
    card = state.destinations.display[0]
    state, _ = act(state, 0, BuyCard(card=card))
    assert refused(state, 0, EndTurn()) == "elcapitan.action_required"  # and sail in, and build


def test_ambiguity_15_a_turn_with_nothing_possible_passes():
    state = player(start(4), 0, money=0)  # first round, no money, no ship: nothing at all is possible
    assert GAME.legal_commands(state, 0) == [EndTurn()]
    state, events = act(state, 0, EndTurn())
    assert events[0].passed and state.current == 1


def test_ambiguity_21_sailing_away_and_back_takes_the_cheapest_free_space():
    state = dock(dock(start(4), 1, "marseille", 0), 0, "marseille", 1)
    state = dock(state, 1, "tunis")
    state = hand(state, 0, "I03", "D01")  # Marseille–Valencia, Marseille destination
    assert refused(state, 0, Sail(card="D01", to="marseille")) == "elcapitan.unreachable"
    state, _ = act(state, 0, Sail(card="I03", to="valencia"))
    state, _ = act(state, 0, Sail(card="D01", to="marseille"))
    assert state.players[0].harbour == 0


def test_decision_optional_pirate_moves_do_not_prevent_a_pass():
    state = player(start(4, ("canarias",)), 0, money=1)
    state = replace(state, destinations=replace(state.destinations, display=()),
                    interconnections=replace(state.interconnections, display=()))  # fmt: skip
    state = hand(state, 0, "I01")  # Marseille–Venezia: no ship to sail yet, and the pirate is elsewhere
    legal = GAME.legal_commands(state, 0)
    assert EndTurn() in legal
    state = player(state, 0, money=10)
    legal = GAME.legal_commands(state, 0)
    assert any(isinstance(c, MovePirate) for c in legal) and EndTurn() in legal
