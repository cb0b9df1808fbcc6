"""Phase D, "Verladen": Far East supply, the loading track, prices, posts, leaving a ship."""

from __future__ import annotations

from typing import Any

import pytest
from msgspec.structs import replace

from domain.eic import GAME, data
from domain.eic.commands import LeaveShipInFarEast, LoadShip
from domain.eic.rules.loading import far_east_supply
from domain.engine import RuleViolation

from .helpers import act, goods_total, player, run, ship, start


def _in_zone(state, zone, *ships_by_owner):
    """Put ships face down into ``zone`` in the given placing order (bottom of the stack first)."""
    by_owner: dict[int, list[Any]] = {}
    for s in ships_by_owner:
        by_owner.setdefault(int(s.id.split(":")[0]), []).append(replace(s, zone=zone, face_down=True))
    for owner, ships in by_owner.items():
        state = player(state, owner, ships=tuple(ships))
    zones = list(state.zones)
    zones[zone - 1] = tuple(s.id for s in ships_by_owner)
    return replace(state, zones=tuple(zones))


def _phase_d(state):
    for p in range(state.companies):
        if not any(s.zone for s in state.players[p].ships):
            state = player(state, p, ships=())
    state = replace(state, fe_card="FE-I-1", eu_card="EU-I-1")
    state, _ = run(replace(state, phase="D", cursor=-1, fe_revealed=True, zone=0, queue=()))
    return state


def test_far_east_supply_die_plus_card_from_dearest_space_surplus_ignored():
    state = replace(start(4), fe_dice=(6, 2, 1, 6), fe_card="FE-I-1")  # card +2,+1,0,0 and 4p tea +1
    supplied = far_east_supply(state)
    room = tuple(len(data.FAR_EAST[4][g]) - state.far_east[g] for g in range(4))
    assert supplied.added == (min(9, room[0]), 3, 1, min(6, room[3]))
    assert supplied.added[0] == 6 and supplied.added[3] == 5  # full columns: the surplus is ignored
    three = replace(start(3), fe_dice=(1, 1, 1, 1), fe_card="FE-I-1")
    assert far_east_supply(three).added == (3, 2, 1, 1)  # the 4-player symbol does not count


def test_example_unloading_track_fastest_first_then_stack_order():
    state = start(4)
    a, b, c = state.initiative[:3]
    state = _in_zone(state, 1, ship(a, "G1"), ship(b, "SH1"), ship(c, "G2"), ship(a, "SH3"))
    state = _phase_d(state)
    assert state.zone == 1
    assert state.queue == (f"{a}:SH3", f"{b}:SH1", f"{a}:G1", f"{c}:G2")
    assert state.actor == a and state.step == "load"


def test_goods_cost_the_price_of_their_space_cheapest_first_post_minus_one():
    state = start(4)
    seat = state.actor
    state = _phase_d(_in_zone(state, 3, ship(seat, "SH2")))
    assert state.zone == 3 and state.far_east[data.SPICES] == 3
    money = state.players[seat].treasury
    after, events = act(state, seat, LoadShip(goods=(2, 1, 0, 0)))
    assert events[0].cost == 3 + 3 + 4  # tea 3, 3; spices on the 4-GS space
    assert after.players[seat].treasury == money - 10
    assert after.far_east == (2, 2, 3, 2)
    ship_after = next(s for s in after.players[seat].ships if s.id == f"{seat}:SH2")
    assert ship_after.cargo == (2, 1, 0, 0) and ship_after.zone == 0  # back at a dock
    posted = player(state, seat, posts=("Madras",))
    _, events = act(posted, seat, LoadShip(goods=(2, 1, 0, 0)))
    assert events[0].cost == 2 + 2 + 3
    cheap = replace(posted, far_east=(10, 9, 8, 7))  # the 1-GS spaces cost 0 with a post
    _, events = act(cheap, seat, LoadShip(goods=(1, 1, 0, 0)))
    assert events[0].cost == 0


def test_only_the_zones_goods_up_to_tonnage_mixed_allowed():
    state = start(4)
    seat = state.actor
    state = player(_phase_d(_in_zone(state, 1, ship(seat, "G1"))), seat, treasury=50)
    legal = [c for c in GAME.legal_commands(state, seat) if isinstance(c, LoadShip)]
    assert all(sum(c.goods) <= 3 and c.goods[data.SPICES] == 0 and c.goods[data.COFFEE] == 0 for c in legal)
    assert LoadShip(goods=(1, 0, 0, 2)) in legal and LoadShip(goods=(0, 0, 0, 0)) in legal
    for bad in ((0, 1, 0, 0), (2, 0, 0, 2)):
        with pytest.raises(RuleViolation):
            act(state, seat, LoadShip(goods=bad))


def test_leave_a_ship_in_the_far_east_for_1_loaded_first_next_epoch():
    state = start(4)
    a, b = state.initiative[:2]
    state = _phase_d(_in_zone(state, 3, ship(a, "G1"), ship(b, "SH3")))
    assert state.queue == (f"{b}:SH3", f"{a}:G1")
    money = state.players[b].treasury
    state, _ = act(state, b, LeaveShipInFarEast())
    assert state.players[b].treasury == money - 1
    assert state.left[2] == (f"{b}:SH3",)
    left = next(s for s in state.players[b].ships if s.id == f"{b}:SH3")
    assert left.zone == 3 and not left.face_down
    # next epoch a faster ship arrives, yet the ship left behind loads first
    nxt = replace(state, zones=((), (), (f"{a}:SH5",)), phase="D", zone=0, queue=())
    nxt = player(nxt, a, ships=(ship(a, "SH5", zone=3, face_down=True),))
    nxt, _ = run(nxt)
    assert nxt.queue == (f"{b}:SH3", f"{a}:SH5")


def test_leaving_costs_1_even_with_cartography_and_needs_the_money():
    state = start(4)
    seat = state.actor
    state = _phase_d(_in_zone(state, 3, ship(seat, "G1")))
    broke = player(state, seat, treasury=0)
    assert LeaveShipInFarEast() not in GAME.legal_commands(broke, seat)
    with pytest.raises(RuleViolation):
        act(broke, seat, LeaveShipInFarEast())


def test_goods_are_conserved_through_loading():
    state = start(4)
    seat = state.actor
    state = player(_phase_d(_in_zone(state, 3, ship(seat, "SH2"))), seat, treasury=30)
    total = goods_total(state)
    after, _ = act(state, seat, LoadShip(goods=(3, 2, 0, 0)))
    assert goods_total(after) == total == data.GOOD_CUBES
