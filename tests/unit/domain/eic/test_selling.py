"""Phase E, "Verkaufen": Europe demand, warehouses first, unloading order, prices, Trade, income."""

from __future__ import annotations

import pytest
from msgspec.structs import replace

from domain.eic import GAME, data
from domain.eic.board import sale
from domain.eic.commands import SellFromWarehouse, UnloadShip
from domain.eic.rules.loading import speed
from domain.eic.rules.selling import europe_demand
from domain.engine import RuleViolation

from .helpers import act, goods_total, occupy, player, run, ship, start

TEA = (1, 0, 0, 0)


def _unloading(state):
    state, _ = run(replace(state, phase="U", cursor=-1, unload_speed=0, eu_revealed=True, eu_card="EU-I-1"))
    return state


def test_europe_demand_die_plus_card_removes_cheapest_first_excess_ignored():
    state = replace(start(4), eu_dice=(6, 1, 2, 1), eu_card="EU-I-2")  # card 0,+2,0,0 and 4p spices +1
    assert europe_demand(state).removed == (4, 3, 2, 1)  # tea wanted 6 but only 4 there
    state = replace(state, europe=(4, 3, 3, 2), eu_revealed=True)
    after, _ = run(replace(state, phase="E", eu_revealed=False, cursor=-1))
    assert after.europe == (0, 0, 1, 1)
    assert goods_total(after) == data.GOOD_CUBES


def test_example_goods_sell_on_the_lowest_empty_space_for_6():
    state = replace(start(4), europe=(1, 0, 0, 0))
    income, europe, _ = sale(state, 0, (2, 0, 0, 0))
    assert income == 6 + 6 and europe == (3, 0, 0, 0)


def test_full_market_still_sells_for_1_cube_to_supply():
    state = start(4)
    full = replace(state, europe=(10, 0, 0, 0))
    income, europe, supply = sale(full, 0, (2, 0, 0, 0))
    assert income == 2 and europe[0] == 10 and supply[0] == full.supply[0] + 2


def test_trade_sells_the_pictured_good_for_1_more():
    state = occupy(replace(start(4), europe=(0, 0, 0, 0)), "MER_TRADE_SILK", 1)
    assert sale(state, 1, (0, 0, 0, 2))[0] == 10 + 1 + 9 + 1
    assert sale(state, 0, (0, 0, 0, 2))[0] == 10 + 9


def test_example_unloading_order_by_speed_and_initiative():
    """Red's speed-4 ship first; speed 2: Blue, Yellow, Blue; speed 1: Blue, Red, Yellow."""
    blue, red, yellow = 0, 1, 2
    state = replace(start(3), initiative=(blue, red, yellow))
    state = player(
        state,
        blue,
        extensions=1,
        ships=(ship(blue, "SH1", TEA), ship(blue, "SH4", TEA), ship(blue, "G1", TEA)),
    )
    state = player(state, red, ships=(ship(red, "SH5", TEA), ship(red, "G1", TEA)))
    state = player(state, yellow, ships=(ship(yellow, "SH1", TEA), ship(yellow, "G1", TEA)))
    state = _unloading(state)
    order = []
    while state.phase == "U":
        seat = state.actor
        command = next(c for c in GAME.legal_commands(state, seat) if isinstance(c, UnloadShip))
        order.append((seat, speed(command.ship)))
        state, _ = act(state, seat, command)
    assert order == [(red, 4), (blue, 2), (yellow, 2), (blue, 2), (blue, 1), (red, 1), (yellow, 1)]
    assert state.phase == "A" and state.epoch == 2  # phase F ran by itself


def test_a_whole_ship_at_a_time_income_goes_to_the_income_board():
    state = start(4)
    seat = state.initiative[0]
    state = replace(player(state, seat, ships=(ship(seat, "SH2", (2, 1, 0, 0)),)), europe=(0, 0, 0, 0))
    for p in range(4):
        if p != seat:
            state = player(state, p, ships=())
    state = _unloading(state)
    money = state.players[seat].treasury
    after, events = act(state, seat, UnloadShip(ship=f"{seat}:SH2"))
    sold = events[0]
    assert sold.sold == (2, 1, 0, 0) and sold.income == 7 + 6 + 8
    on_board = GAME.evolve(state, sold)
    assert on_board.players[seat].income == 21 and on_board.players[seat].treasury == money
    assert after.phase == "A" and after.players[seat].treasury == money + 21  # phase F moved it over
    assert after.players[seat].ships[0].cargo == (0, 0, 0, 0)


def test_warehouses_store_2_and_1_and_sell_first_next_epoch():
    state = start(4)
    seat = state.initiative[0]
    cargo = (3, 0, 0, 1)
    state = player(state, seat, extensions=2, ships=(ship(seat, "SH2", cargo),))
    for p in range(4):
        if p != seat:
            state = player(state, p, ships=())
    state = _unloading(state)
    stores = {c.store for c in GAME.legal_commands(state, seat) if isinstance(c, UnloadShip)}
    assert max(sum(s) for s in stores) == 3  # 2 + 1
    nothing = player(state, seat, extensions=0)
    assert {c.store for c in GAME.legal_commands(nothing, seat) if isinstance(c, UnloadShip)} == {
        (0, 0, 0, 0)
    }
    with pytest.raises(RuleViolation) as err:
        act(nothing, seat, UnloadShip(ship=f"{seat}:SH2", store=(1, 0, 0, 0)))
    assert err.value.code == "eic.warehouse_full"
    after, _ = act(state, seat, UnloadShip(ship=f"{seat}:SH2", store=(2, 0, 0, 1)))
    assert after.players[seat].warehouse == (2, 0, 0, 1)
    # next phase E: the warehouse sells first, any part of it
    e = replace(after, phase="E", eu_revealed=False, eu_card="EU-I-1", cursor=-1)
    e = player(e, seat, ships=())
    e, _ = run(e)
    assert e.step == "warehouse" and e.actor == seat
    assert SellFromWarehouse(goods=(1, 0, 0, 0)) in GAME.legal_commands(e, seat)
    sold, _ = act(e, seat, SellFromWarehouse(goods=(1, 0, 0, 1)))
    assert sold.players[seat].warehouse == (1, 0, 0, 0)
    assert goods_total(sold) == goods_total(e)
