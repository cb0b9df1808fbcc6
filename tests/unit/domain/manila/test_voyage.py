"""Dice rounds, pilots, boarding, plundering and the shipyard (S0 "Ablauf einer Würfelrunde",
"Jetzt schlägt's 13", "Die Lotsen mischen mit", "Spielvariante")."""

from __future__ import annotations

import pytest
from msgspec.structs import replace

from domain.engine import RuleViolation
from domain.manila import GAME
from domain.manila import commands as cmd
from domain.manila import events as ev

from .helpers import Dice, act, before_last_roll, boat, last_roll, to_placement, until


def _roll_two(state, *dice):
    """Placement round 2 passes and roll 2 shows ``dice``."""
    state = replace(state, step=2, rolls=1, phase="place", placer=0, placed_in_round=0)
    for seat in range(4):
        state, events = act(state, seat, cmd.PassPlacement(), Dice(*dice))
    return state, events


def test_dice_arriving_boats_take_harbour_a_b_c_in_order_and_surplus_pips_are_lost():
    state = replace(to_placement(), boats=(boat("jade", 13), boat("nutmeg", 12), boat("ginseng", 1)))
    for seat in range(4):
        state, _ = act(state, seat, cmd.PassPlacement(), Dice(6, 2, 1))
    jade, nutmeg, ginseng = state.boats
    assert (jade.berth_index, nutmeg.berth_index) == (0, 1)  # boat order for simultaneous arrivals
    assert (jade.position, nutmeg.position) == (14, 14) and ginseng.position == 2


def test_dice_boats_in_port_do_not_move_again():
    state = replace(to_placement(), boats=(replace(boat("jade", 14), berth="harbour", berth_index=0),
                                          boat("nutmeg", 2), boat("ginseng", 1)))  # fmt: skip
    for seat in range(4):
        state, _ = act(state, seat, cmd.PassPlacement(), Dice(6, 2, 1))
    assert state.boats[0].berth_index == 0 and state.boats[1].position == 4


def test_boarding_only_after_roll_2_and_only_on_field_13():
    state = replace(to_placement(), boats=(boat("jade", 11), boat("nutmeg", 1), boat("ginseng", 1)),
                    pirates=(1, None))  # fmt: skip
    for seat in range(4):  # roll 1 puts jade on 13: no boarding
        state, _ = act(state, seat, cmd.PassPlacement(), Dice(2, 1, 1))
    assert state.phase == "place" and state.boats[0].position == 13
    state, _ = _roll_two(
        replace(state, boats=(boat("jade", 12), boat("nutmeg", 1), boat("ginseng", 1))), 1, 1, 1
    )
    assert state.phase == "boarding" and GAME.to_act(state) == frozenset({1})


def test_boarding_captain_first_pirate_may_stay_and_second_may_board():
    state = replace(to_placement(), boats=(boat("jade", 12, 2), boat("nutmeg", 1), boat("ginseng", 1)),
                    pirates=(1, 3))  # fmt: skip
    state, _ = _roll_two(state, 1, 1, 1)
    state, events = act(state, 1, cmd.StayAboard())
    assert events == [ev.PirateStayed(seat=1)] and GAME.to_act(state) == frozenset({3})
    state, events = act(state, 3, cmd.BoardBoat(good="jade"))
    assert state.boats[0].seats[:2] == (2, 3) and state.pirates == (1, None)
    assert state.phase == "place"  # placement round 3 follows


def test_boarding_a_boarded_pirate_is_an_ordinary_accomplice_and_is_paid_on_arrival():
    state = replace(to_placement(), boats=(boat("jade", 12, 2), boat("nutmeg", 1), boat("ginseng", 1)),
                    pirates=(1, None))  # fmt: skip
    state, _ = _roll_two(state, 1, 1, 1)
    state, _ = act(state, 1, cmd.BoardBoat(good="jade"))
    assert state.pirates == (None, None)
    state = before_last_roll(state, state.boats)
    _, events = last_roll(state, 1, 1, 1)
    assert sorted(e.seat for e in events if isinstance(e, ev.Payout) and e.reason == "cargo_jade") == [1, 2]


def test_variant_boarding_displaces_an_accomplice_of_a_full_boat():
    full = boat("nutmeg", 12, 0, 2, 3)
    state = replace(to_placement(options={"variant_boarding": True}),
                    boats=(boat("jade", 1), full, boat("ginseng", 1)), pirates=(1, None))  # fmt: skip
    state, _ = _roll_two(state, 1, 1, 1)
    options = [c for c in GAME.legal_commands(state, 1) if isinstance(c, cmd.BoardBoat)]
    assert options == [cmd.BoardBoat(good="nutmeg", displace=k) for k in range(3)]
    state, events = act(state, 1, cmd.BoardBoat(good="nutmeg", displace=1))
    assert events[0] == ev.PirateBoarded(seat=1, good="nutmeg", seat_index=1, displaced=2)
    assert state.boats[1].seats == (0, 1, 3)


def test_variant_boarding_empty_seats_first_and_never_the_captain_who_just_boarded():
    state = replace(to_placement(options={"variant_boarding": True}),
                    boats=(boat("jade", 1), boat("nutmeg", 12, 0, 2), boat("ginseng", 1)), pirates=(1, 3))  # fmt: skip
    state, _ = _roll_two(state, 1, 1, 1)
    with pytest.raises(RuleViolation):
        act(state, 1, cmd.BoardBoat(good="nutmeg", displace=0))  # a seat is still free
    state, _ = act(state, 1, cmd.BoardBoat(good="nutmeg"))
    options = [c for c in GAME.legal_commands(state, 3) if isinstance(c, cmd.BoardBoat)]
    assert options == [cmd.BoardBoat(good="nutmeg", displace=0), cmd.BoardBoat(good="nutmeg", displace=1)]


def test_basic_rule_no_boarding_a_full_boat():
    state = replace(to_placement(), boats=(boat("jade", 1), boat("nutmeg", 12, 0, 2, 3), boat("ginseng", 1)),
                    pirates=(1, None))  # fmt: skip
    state, events = _roll_two(state, 1, 1, 1)
    assert ev.PirateStayed(seat=1, forced=True) in events and state.phase == "place"


def test_plunder_captain_may_send_the_boat_to_the_shipyard():
    state = before_last_roll(to_placement(), (boat("jade", 12, 2), boat("nutmeg", 1), boat("ginseng", 1)),
                             pirates=(1, None), shipyard=(None, None, 3))  # fmt: skip
    state, events = last_roll(state, 1, 1, 1)
    assert next(e for e in events if isinstance(e, ev.BoatPlundered)).shares == (36,)  # one pirate takes all
    after, events = act(state, 1, cmd.SendPlunderedBoat(good="jade", to="shipyard"))
    berthed = next(e for e in events if isinstance(e, ev.BoatsBerthed))
    assert berthed == ev.BoatsBerthed(harbour=(), shipyard=("jade", "nutmeg", "ginseng"))
    assert ev.Payout(seat=3, reason="shipyard_c", amount=15) in events
    assert after.market == state.market  # nothing reached the harbour


def test_plunder_needs_a_pirate_otherwise_the_boat_on_13_goes_to_the_harbour_with_its_accomplices():
    state = before_last_roll(to_placement(), (boat("jade", 12, 2), boat("nutmeg", 1), boat("ginseng", 1)))
    _state2, events = last_roll(state, 1, 1, 1)
    assert not any(isinstance(e, ev.BoatPlundered) for e in events)
    assert ev.BoatsBerthed(harbour=("jade",), shipyard=("nutmeg", "ginseng")) in events
    assert ev.Payout(seat=2, reason="cargo_jade", amount=36) in events


def test_pilots_act_small_first_then_big_before_the_third_roll():
    state = to_placement()
    state = replace(state, small_pilot=2, big_pilot=3, step=4, rolls=2, placer=0, placed_in_round=0)
    for seat in range(4):
        state, _ = act(state, seat, cmd.PassPlacement())
    assert state.phase == "pilot" and GAME.to_act(state) == frozenset({2})
    state, _ = act(state, 2, cmd.PassPilot())
    assert GAME.to_act(state) == frozenset({3})


def test_pilot_small_moves_one_boat_one_field_big_up_to_two_or_two_boats_one_each():
    state = before_last_roll(
        to_placement(), (boat("jade", 5), boat("nutmeg", 5), boat("ginseng", 5)), big_pilot=1
    )
    with pytest.raises(RuleViolation, match="bad_pilot_move"):
        act(state, 0, cmd.MoveBoats(moves=(cmd.PilotMove(good="jade", steps=2),)))
    state, _ = act(state, 0, cmd.MoveBoats(moves=(cmd.PilotMove(good="jade", steps=-1),)))
    assert state.boats[0].position == 4
    with pytest.raises(RuleViolation, match="bad_pilot_move"):
        act(
            state,
            1,
            cmd.MoveBoats(moves=(cmd.PilotMove(good="jade", steps=2), cmd.PilotMove(good="nutmeg", steps=1))),
        )
    events = act(state, 1, cmd.MoveBoats(moves=(cmd.PilotMove(good="jade", steps=2),)), Dice(1, 1, 1))[1]
    assert (
        until(state, events, ev.BoatsPiloted).boats[0].position == 6
    )  # the big pilot may move the same boat


def test_pilot_cannot_move_a_boat_below_field_0_and_may_push_a_boat_into_port():
    state = before_last_roll(to_placement(), (boat("jade", 0), boat("nutmeg", 13), boat("ginseng", 5)))
    assert cmd.MoveBoats(moves=(cmd.PilotMove(good="jade", steps=-1),)) not in GAME.legal_commands(state, 0)
    with pytest.raises(RuleViolation, match="boat_unmovable"):
        act(state, 0, cmd.MoveBoats(moves=(cmd.PilotMove(good="jade", steps=-1),)))
    events = act(state, 0, cmd.MoveBoats(moves=(cmd.PilotMove(good="nutmeg", steps=1),)), Dice(1, 1, 1))[1]
    assert until(state, events, ev.BoatsPiloted).boats[1].berth == "harbour"


def test_shipyard_boats_not_in_port_after_roll_3_take_shipyard_a_b_c():
    state = before_last_roll(to_placement(), (boat("jade", 1), boat("nutmeg", 1), boat("ginseng", 1)))
    _, events = last_roll(state, 1, 1, 1)
    assert ev.BoatsBerthed(harbour=(), shipyard=("jade", "nutmeg", "ginseng")) in events
