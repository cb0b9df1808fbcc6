"""Harbour master's duties and the placement rounds (S0 chapter 2, "Wohin mit den Komplizen?")."""

from __future__ import annotations

import pytest
from msgspec.structs import replace

from domain.engine import RuleViolation
from domain.manila import GAME, data
from domain.manila import commands as cmd
from domain.manila import events as ev
from domain.manila.state import Player

from .helpers import Dice, act, start, to_placement, with_players


def _harbour_master(seats: int = 4):
    state = start(seats)
    state, _ = act(state, 0, cmd.Bid(amount=1))
    for seat in range(1, seats):
        state, _ = act(state, seat, cmd.PassBid())
    return state


def test_harbour_master_may_buy_one_share_at_least_5():
    state = _harbour_master()
    good = next(g for i, g in enumerate(data.GOODS) if state.supply[i] > 0)
    after, events = act(state, 0, cmd.BuyShare(good=good))
    assert events == [ev.ShareBought(seat=0, good=good, price=5)]
    assert (
        after.phase == "load"
        and after.players[0].shares.count(good) == state.players[0].shares.count(good) + 1
    )
    with pytest.raises(RuleViolation, match="wrong_phase"):
        act(after, 0, cmd.BuyShare(good=good))  # at most one per voyage


def test_harbour_master_cannot_buy_a_share_none_is_left_of():
    state = replace(_harbour_master(), supply=(0, 5, 5, 5))
    with pytest.raises(RuleViolation, match="no_share_left"):
        act(state, 0, cmd.BuyShare(good="jade"))


def test_harbour_master_must_load_three_goods_and_start_fields_sum_to_9():
    state, _ = act(_harbour_master(), 0, cmd.SkipShare())
    for starts in ((3, 3, 4), (6, 3, 0), (5, 5, -1)):
        with pytest.raises(RuleViolation, match="bad_start"):
            act(state, 0, cmd.LoadBoats(left_ashore="jade", starts=starts))
    state, events = act(state, 0, cmd.LoadBoats(left_ashore="jade", starts=(5, 4, 0)))
    assert events == [ev.BoatsLoaded(goods=("silk", "nutmeg", "ginseng"), starts=(5, 4, 0))]


def test_placement_starts_with_the_harbour_master_and_goes_clockwise():
    state = to_placement()
    state = replace(state, harbour_master=2, placer=2)
    order = []
    for _ in range(4):
        (seat,) = GAME.to_act(state)
        order.append(seat)
        state, _ = act(state, seat, cmd.PassPlacement())
    assert order == [2, 3, 0, 1]


def test_placement_four_players_roll_after_each_round():
    state = to_placement(4)
    for seat in range(4):
        state, events = act(state, seat, cmd.PassPlacement(), Dice(1, 1, 1))
    assert isinstance(events[-1], ev.DiceRolled) and state.rolls == 1


def test_placement_three_players_two_rounds_before_the_first_roll():
    state = to_placement(3)
    for seat in range(3):
        state, _ = act(state, seat, cmd.PassPlacement(), Dice(1, 1, 1))
    assert state.rolls == 0 and state.phase == "place"
    for seat in range(3):
        state, _events = act(state, seat, cmd.PassPlacement(), Dice(1, 1, 1))
    assert state.rolls == 1


def test_placement_boat_seats_cheapest_free_seat_first():
    state = to_placement()
    state, events = act(state, 0, cmd.PlaceAccomplice(field="jade"))
    assert events[-1].paid == 3 and events[-1].seat_index == 0
    state, events = act(state, 1, cmd.PlaceAccomplice(field="jade"))
    assert events[-1].paid == 4 and events[-1].seat_index == 1
    assert state.boats[0].seats[:2] == (0, 1)


def test_placement_harbour_and_shipyard_fields_any_free_one_even_with_a_boat_on_it():
    state = to_placement()
    state = replace(state, boats=(replace(state.boats[0], berth="harbour", berth_index=0), *state.boats[1:]))
    state, events = act(state, 0, cmd.PlaceAccomplice(field="harbour_c"))
    assert events[-1].paid == 2
    state, events = act(state, 1, cmd.PlaceAccomplice(field="harbour_a"))
    assert events[-1].paid == 4
    assert state.harbour == (1, None, 0)
    with pytest.raises(RuleViolation, match="field_unavailable"):
        act(state, 2, cmd.PlaceAccomplice(field="harbour_a"))
    state, events = act(state, 2, cmd.PlaceAccomplice(field="shipyard_b"))
    assert events[-1].paid == 3 and state.shipyard == (None, 2, None)


def test_placement_no_seat_on_a_boat_already_in_port():
    state = to_placement()
    state = replace(state, boats=(replace(state.boats[0], berth="harbour", berth_index=0), *state.boats[1:]))
    assert cmd.PlaceAccomplice(field="jade") not in GAME.legal_commands(state, 0)
    with pytest.raises(RuleViolation):
        act(state, 0, cmd.PlaceAccomplice(field="jade"))


def test_placement_pirate_boat_captain_seat_first_then_the_second_one_player_may_take_both():
    state = replace(to_placement(), placer=0)
    state, events = act(state, 0, cmd.PlaceAccomplice(field="pirate"))
    assert events[-1].paid == 5 and state.pirates == (0, None)
    state = replace(state, placer=0)
    state, _ = act(state, 0, cmd.PlaceAccomplice(field="pirate"))
    assert state.pirates == (0, 0)
    assert cmd.PlaceAccomplice(field="pirate") not in GAME.legal_commands(state, 1)


def test_placement_small_pilot_costs_2_big_pilot_5():
    state = to_placement()
    state, events = act(state, 0, cmd.PlaceAccomplice(field="small_pilot"))
    assert events[-1].paid == 2
    state, events = act(state, 1, cmd.PlaceAccomplice(field="big_pilot"))
    assert events[-1].paid == 5 and (state.small_pilot, state.big_pilot) == (0, 1)


def test_placement_insurance_pays_10_at_once():
    state = to_placement()
    before = state.players[0].cash
    state, events = act(state, 0, cmd.PlaceAccomplice(field="insurance"))
    assert events[-1].received == 10 and state.players[0].cash == before + 10 and state.insurance == 0


def test_placement_passing_forfeits_the_accomplice_for_the_voyage():
    state = to_placement()
    state, events = act(state, 0, cmd.PassPlacement())
    assert events == [ev.PlacementPassed(seat=0)]
    assert GAME.to_act(state) == frozenset({1})  # seat 0 places no extra accomplice later this round


def test_placement_stowaway_places_free_on_boats_only():
    state = to_placement()
    state = with_players(state, Player(cash=0, shares=(), mortgaged=("jade", "silk")), *state.players[1:])
    legal = GAME.legal_commands(state, 0)
    fields = {c.field for c in legal if isinstance(c, cmd.PlaceAccomplice)}
    assert fields == {"jade", "nutmeg", "ginseng"}  # no insurance, harbour, pilots for a stowaway
    state, events = act(state, 0, cmd.PlaceAccomplice(field="jade"))
    assert events[-1].paid == 0 and events[-1].stowaway


def test_placement_who_cannot_afford_the_cheapest_boat_seat_takes_it_for_all_his_cash():
    state = to_placement()
    jade, nutmeg, ginseng = state.boats
    boats = (replace(jade, seats=(1, None, None, None)), replace(nutmeg, seats=(1, None, None)),
             replace(ginseng, seats=(1, 2, None)))  # fmt: skip
    state = with_players(replace(state, boats=boats), Player(cash=1, shares=()), *state.players[1:])
    fields = {c.field for c in GAME.legal_commands(state, 0) if isinstance(c, cmd.PlaceAccomplice)}
    assert fields & set(data.GOODS) == {"nutmeg", "ginseng"}  # the seats at the cheapest price (3)
    assert "harbour_c" not in fields  # 2 pesos: still out of reach
    state, events = act(state, 0, cmd.PlaceAccomplice(field="ginseng"))
    assert events[-1].paid == 1 and state.players[0].cash == 0
    assert state.office_net == -1 - 1  # the bid of 1 and his last peso


def test_placement_short_of_cash_pledges_shares_to_pay():
    state = to_placement()
    state = with_players(state, Player(cash=1, shares=("silk",)), *state.players[1:])
    state, events = act(state, 0, cmd.PlaceAccomplice(field="big_pilot"))
    assert isinstance(events[0], ev.LoanTaken) and events[0].forced
    assert state.players[0].cash == 1 + 12 - 5
