"""The worked examples of the rulebook (S0, Abb. 3–14), one test each, named after the example.

Seats stand for the rulebook's colours: 0 ORANGE, 1 RED, 2 BLUE, 3 YELLOW (BLACK in Abb. 13b)."""

from __future__ import annotations

import pytest
from msgspec.structs import replace

from domain.engine import RuleViolation
from domain.manila import commands as cmd
from domain.manila import data
from domain.manila import events as ev
from domain.manila.rules.office import START_TRIPLES
from domain.manila.state import Player, share_price

from .helpers import Dice, act, before_last_roll, boat, cash, last_roll, start, to_placement, until

ORANGE, RED, BLUE, YELLOW = 0, 1, 2, 3


def _market(nutmeg: int, silk: int, ginseng: int, jade: int) -> tuple[int, ...]:
    steps = {"nutmeg": nutmeg, "silk": silk, "ginseng": ginseng, "jade": jade}
    return tuple(data.MARKET_TRACK.index(steps[g]) for g in data.GOODS)


def test_example_abb_3_share_prices_nutmeg_10_silk_20_ginseng_and_jade_5():
    state = replace(start(), market=_market(nutmeg=10, silk=20, ginseng=0, jade=5))
    assert share_price(state, "nutmeg") == 10
    assert share_price(state, "silk") == 20
    assert share_price(state, "ginseng") == 5  # worth 0, minimum price 5
    assert share_price(state, "jade") == 5
    state = replace(state, phase="buy_share", harbour_master=0)
    after, events = act(state, 0, cmd.BuyShare(good="silk"))
    assert events[-1] == ev.ShareBought(seat=0, good="silk", price=20)
    assert after.players[0].cash == state.players[0].cash - 20


def test_example_abb_4_silk_is_left_ashore():
    state = to_placement(left="silk")
    assert [b.good for b in state.boats] == ["jade", "nutmeg", "ginseng"]


def test_example_abb_5a_start_positions_4_3_2_sum_to_9():
    state = to_placement(starts=(4, 3, 2))
    assert [b.position for b in state.boats] == [4, 3, 2]


def test_example_abb_5b_a_boat_may_start_on_0_when_the_others_make_9():
    state = to_placement(starts=(5, 4, 0))
    assert [b.position for b in state.boats] == [5, 4, 0]
    assert all(sum(t) == 9 and max(t) <= 5 for t in START_TRIPLES)


def test_example_abb_6_dice_move_nutmeg_4_silk_2_and_jade_reaches_harbour_losing_2_pips():
    state = to_placement(left="ginseng", starts=(3, 3, 3))
    state = replace(state, boats=(boat("jade", 10), boat("silk", 5), boat("nutmeg", 4)), step=0)
    for seat in range(4):
        state, _ = act(state, seat, cmd.PassPlacement(), Dice(6, 2, 4))
    jade, silk, nutmeg = state.boats
    assert (silk.position, nutmeg.position) == (7, 8)
    assert (jade.berth, jade.berth_index) == ("harbour", 0)  # 10 + 6 = 16: two pips lost


def test_example_abb_7_jade_in_harbour_a_after_roll_2_others_take_b_and_c():
    state = before_last_roll(
        to_placement(),
        (replace(boat("jade", 14), berth="harbour", berth_index=0), boat("nutmeg", 11), boat("ginseng", 12)),
    )
    _after, events = last_roll(state, 1, 5, 4)
    state = until(state, events, ev.MarketRose)
    berths = {b.good: (b.berth, b.berth_index) for b in state.boats}
    assert berths == {"jade": ("harbour", 0), "nutmeg": ("harbour", 1), "ginseng": ("harbour", 2)}


def test_example_abb_8_only_silk_arrives_the_others_go_to_shipyard_a_and_b():
    state = to_placement(left="jade")
    state = before_last_roll(state, (boat("silk", 12), boat("nutmeg", 3), boat("ginseng", 5)))
    _after, events = last_roll(state, 6, 1, 1)
    state = until(state, events, ev.MarketRose)
    berths = {b.good: (b.berth, b.berth_index) for b in state.boats}
    assert berths == {"silk": ("harbour", 0), "nutmeg": ("shipyard", 0), "ginseng": ("shipyard", 1)}


def test_example_abb_9_captain_boards_the_only_free_seat_second_pirate_becomes_captain():
    state = to_placement(left="silk")
    full_jade = boat("jade", 11, RED, BLUE, YELLOW, RED)
    ginseng = boat("ginseng", 12, BLUE, YELLOW)
    state = replace(
        state, boats=(full_jade, boat("nutmeg", 3), ginseng), pirates=(ORANGE, RED), step=2, rolls=1
    )
    for seat in range(4):  # placement round 2 passes, then roll 2: jade +2, ginseng +1 onto field 13
        state, _ = act(state, seat, cmd.PassPlacement(), Dice(2, 1, 1))
    assert state.phase == "boarding"
    assert [b.position for b in state.boats] == [13, 4, 13]
    with pytest.raises(RuleViolation):
        act(state, ORANGE, cmd.BoardBoat(good="jade"))  # full: no boarding under the basic rule
    state, events = act(state, ORANGE, cmd.BoardBoat(good="ginseng"))
    assert events[0] == ev.PirateBoarded(seat=ORANGE, good="ginseng", seat_index=2)
    assert events[1] == ev.PirateStayed(seat=RED, forced=True)
    assert state.pirates == (RED, None)  # the second pirate is the new captain
    assert state.phase == "place"


def test_example_abb_10_plundering_splits_24_pesos_12_12():
    state = to_placement(left="silk")
    nutmeg = boat("nutmeg", 10, BLUE, YELLOW)
    state = before_last_roll(state, (boat("jade", 2), nutmeg, boat("ginseng", 1)), pirates=(ORANGE, RED))
    before = cash(state)
    state, events = last_roll(state, 1, 3, 1)
    plunder = next(e for e in events if isinstance(e, ev.BoatPlundered))
    assert plunder == ev.BoatPlundered(
        good="nutmeg", returned=(BLUE, YELLOW), pirates=(ORANGE, RED), shares=(12, 12)
    )
    assert state.phase == "captain"
    assert cash(state)[ORANGE] == before[ORANGE] + 12 and cash(state)[RED] == before[RED] + 12
    state, events = act(state, ORANGE, cmd.SendPlunderedBoat(good="nutmeg", to="harbour"))
    assert not any(isinstance(e, ev.Payout) and e.reason == "cargo_nutmeg" for e in events)
    assert state.market[data.GOODS.index("nutmeg")] == 1  # sent to the harbour: its value rises


def test_example_abb_11_pilots_small_pushes_nutmeg_into_port_big_moves_jade_back_and_ginseng_to_13():
    state = to_placement(left="silk")
    state = before_last_roll(state, (boat("jade", 9), boat("nutmeg", 13), boat("ginseng", 12)), big_pilot=RED)
    state = replace(state, pirates=(BLUE, None))
    state, _ = act(state, 0, cmd.MoveBoats(moves=(cmd.PilotMove(good="nutmeg", steps=1),)))
    assert state.boats[1].berth == "harbour"
    assert state.pilot_turn == "big"
    with pytest.raises(RuleViolation):  # a boat in port cannot be moved
        act(state, RED, cmd.MoveBoats(moves=(cmd.PilotMove(good="nutmeg", steps=-1),)))
    two = cmd.MoveBoats(moves=(cmd.PilotMove(good="jade", steps=-1), cmd.PilotMove(good="ginseng", steps=1)))
    events = act(state, RED, two, Dice(3, 6, 1))[1]
    assert isinstance(events[0], ev.BoatsPiloted)
    assert isinstance(events[1], ev.DiceRolled)  # on 13 by a pilot: the pirates do nothing before the roll
    assert not any(isinstance(e, ev.BoatPlundered) for e in events)


def test_example_abb_12_jade_boat_pays_36_as_24_to_red_and_12_to_yellow():
    state = to_placement(left="silk")
    jade = boat("jade", 12, RED, YELLOW, RED)
    state = before_last_roll(state, (jade, boat("nutmeg", 1), boat("ginseng", 1)))
    before = cash(state)
    state, events = last_roll(state, 4, 1, 1)
    paid = [e for e in events if isinstance(e, ev.Payout) and e.reason == "cargo_jade"]
    assert sorted((e.seat, e.amount) for e in paid) == [(RED, 12), (RED, 12), (YELLOW, 12)]
    assert cash(state)[RED] - before[RED] == 24 and cash(state)[YELLOW] - before[YELLOW] == 12


def test_example_abb_13a_two_boats_in_port_orange_gets_6_red_8_blue_nothing():
    state = to_placement(left="silk")
    boats = (boat("jade", 12), boat("nutmeg", 12), boat("ginseng", 1))
    state = before_last_roll(state, boats, harbour=(ORANGE, RED, BLUE))
    before = cash(state)
    state, _ = last_roll(state, 3, 3, 1)
    gains = [a - b for a, b in zip(cash(state), before, strict=True)]
    assert gains[ORANGE] == 6 and gains[RED] == 8 and gains[BLUE] == 0


def test_example_abb_13b_only_ginseng_in_shipyard_black_renting_b_gets_nothing():
    black = YELLOW
    state = to_placement(left="silk")
    boats = (boat("jade", 12), boat("nutmeg", 12), boat("ginseng", 1))
    state = before_last_roll(state, boats, shipyard=(RED, black, None))
    before = cash(state)
    _after, events = last_roll(state, 3, 3, 1)
    state = until(state, events, ev.MarketRose)
    assert [b.berth for b in state.boats] == ["harbour", "harbour", "shipyard"]
    assert cash(state)[black] == before[black]
    assert ev.Payout(seat=RED, reason="shipyard_a", amount=6) in events  # no agent: the office pays


def test_example_abb_14_insurance_pays_8_to_orange_but_not_to_itself():
    state = to_placement(left="silk")
    boats = (boat("jade", 12), boat("nutmeg", 1), boat("ginseng", 1))
    state = before_last_roll(state, boats, shipyard=(BLUE, ORANGE, None), insurance=BLUE)
    state = replace(state, players=tuple(replace(p, cash=20) for p in state.players))
    before, office = cash(state), state.office_net
    state, events = last_roll(state, 3, 1, 1)
    claims = [e for e in events if isinstance(e, ev.InsuranceClaimPaid)]
    assert [(c.to_seat, c.by_agent, c.by_office) for c in claims] == [(BLUE, 6, 0), (ORANGE, 8, 0)]
    assert cash(state)[BLUE] == before[BLUE] - 8
    assert cash(state)[ORANGE] == before[ORANGE] + 8
    assert state.office_net == office  # the office paid nothing for the shipyard


def test_example_abb_2_players_start_with_30_pesos_two_shares_markets_at_0():
    state = start(4)
    assert all(p == Player(cash=30, shares=p.shares) and len(p.shares) == 2 for p in state.players)
    assert state.market == (0, 0, 0, 0)
