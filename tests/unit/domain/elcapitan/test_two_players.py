"""The 2-player game (rulebook "Sonderregeln für El Capitan zu zweit").

Player A is seat 0: main colour 0 (Red), neutral colour 2 (Green). Player B is seat 1: main 1 (Yellow),
neutral 3 (Blue).
"""

from __future__ import annotations

import pytest
from msgspec.structs import replace

from domain.elcapitan import GAME
from domain.elcapitan.commands import BuildWarehouse, ChooseStartPlayer, EndTurn
from domain.elcapitan.rules.emitter import Emitter
from domain.elcapitan.rules.payday import fortress_payouts, hold_payday, majority_payouts, proliferation
from domain.engine import RuleViolation, rng_for

from .helpers import act, chain, city, dock, player, set_city, start

RED, YELLOW, GREEN, BLUE = 0, 1, 2, 3


def kinds(state, seat=0):
    return {c.neutral for c in GAME.legal_commands(state, seat) if isinstance(c, BuildWarehouse)}


def test_two_players_build_a_main_and_a_neutral_colour():
    state = dock(start(2), 0, "tunis")
    assert kinds(state) == {False, True}
    state, events = act(state, 0, BuildWarehouse(site=1, neutral=True))
    assert events[0].colour == GREEN and state.players[0].neutral == 1


@pytest.mark.parametrize(
    ("main", "neutral", "allowed"),
    [(6, 2, {False, True}), (3, 2, {True}), (3, 1, {False, True}), (2, 1, {True}), (1, 1, {True}),
     (1, 0, {False})],
)  # fmt: skip
def test_example_main_supply_must_exceed_neutral_supply(main, neutral, allowed):
    state = player(dock(start(2), 0, "tunis"), 0, warehouses=main, neutral=neutral)
    assert kinds(state) == allowed
    if False not in allowed:
        with pytest.raises(RuleViolation) as err:
            GAME.decide(state, 0, BuildWarehouse(site=1), rng_for(b"refused", 1))
        assert err.value.code == "elcapitan.main_must_outnumber_neutral"


def test_ambiguity_25_reaching_zero_and_zero_is_allowed():
    state = player(dock(start(2), 0, "tunis"), 0, warehouses=1, neutral=0, fortresses=0)
    state, _ = act(state, 0, BuildWarehouse(site=1))
    assert (state.players[0].warehouses, state.players[0].neutral) == (0, 0)


def test_no_more_than_three_main_or_four_main_and_neutral_in_a_row():
    state = chain(start(2), "tunis", {1: RED, 2: RED, 3: RED})
    state = dock(state, 0, "tunis")
    assert kinds(state) == {True}  # a fourth red is refused, a green is fine (4 together)
    state = chain(state, "tunis", {1: RED, 2: GREEN, 3: RED, 4: RED})
    assert kinds(state) == set()  # five of main + neutral in a row would be too many


def test_ambiguity_23_a_neutral_run_alone_is_bounded_by_four():
    state = chain(start(2), "tunis", {1: GREEN, 2: GREEN, 3: GREEN})
    state = dock(player(state, 0, warehouses=6, neutral=2), 0, "tunis")
    assert True in kinds(state)
    state = chain(state, "tunis", {1: GREEN, 2: GREEN, 3: GREEN, 4: GREEN})
    assert True not in kinds(state)


def test_example_1_neutral_green_first_nobody_is_paid():
    state = chain(start(2), "tunis", {1: GREEN, 2: YELLOW})
    assert majority_payouts(state, city(state, "tunis")) == (0, 0)


def test_example_2_player_a_built_both_but_green_ranks_first_no_money():
    state = chain(start(2), "tunis", {1: GREEN, 2: RED})
    assert majority_payouts(state, city(state, "tunis")) == (0, 0)


def test_two_players_only_the_first_rank_of_a_main_colour_is_paid():
    state = chain(start(2), "marseille", {1: YELLOW, 2: RED, 3: YELLOW, 4: RED, 5: BLUE})
    assert majority_payouts(state, city(state, "marseille")) == (0, 20)  # no second rank


def test_two_players_proliferation_counts_main_colours_only():
    state = start(2)
    for name in ("tunis", "napoli", "athina"):
        state = chain(state, name, {1: GREEN})
    assert proliferation(state) == (0, 0)
    for name in ("tunis", "napoli", "athina"):
        state = chain(state, name, {1: RED})
    assert proliferation(state) == (5, 0)


def test_ambiguity_24_two_player_fortresses_pay_half_or_full():
    state = chain(start(2), "marseille", {1: YELLOW, 2: BLUE, 3: RED, 4: GREEN, 5: RED})
    state = chain(state, "tunis", {s: s % 4 for s in range(1, 9)})
    state = set_city(state, "marseille", fortresses=(0, 1))
    assert fortress_payouts(state) == (10, 10)


def test_two_players_phase_end_if_the_start_player_finished_the_other_has_one_more_turn():
    state = player(start(2), 0, warehouses=1, neutral=0, fortresses=0)
    state = dock(state, 0, "tunis")
    state, _ = act(state, 0, BuildWarehouse(site=1))
    state, events = act(state, 0, EndTurn())
    assert state.phase_ending and state.current == 1  # the start player finished: B has one more turn
    state = dock(state, 1, "napoli")
    state, _ = act(state, 1, BuildWarehouse(site=1))
    state, events = act(state, 1, EndTurn())
    assert "PaydayHeld" in [type(e).__name__ for e in events]


def test_two_players_new_pieces_and_the_poorer_player_chooses():
    state = player(player(start(2), 0, money=40), 1, money=10)
    out = Emitter(state)
    hold_payday(out)
    state = out.state
    assert state.chooser == 1
    state, _ = act(state, 1, ChooseStartPlayer(seat=0))
    assert (state.players[0].warehouses, state.players[0].neutral, state.players[0].fortresses) == (12, 4, 2)
    assert state.pool_warehouses == (6, 6, 2, 2)
    assert replace(state).start_player == 0
