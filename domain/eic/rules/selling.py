"""Phase E, "Verkaufen": Europe demand, warehouse sales, unloading fastest first, warehouses."""

from __future__ import annotations

from itertools import product

from domain.eic import data
from domain.eic import events as ev
from domain.eic.board import add_goods, market_side, sale, warehouse_capacity
from domain.eic.commands import SellFromWarehouse, UnloadShip
from domain.eic.rules.common import require, require_step
from domain.eic.rules.loading import card_effect, speed
from domain.eic.state import NO_GOODS, Goods, State


def europe_demand(state: State) -> ev.EuropeDemanded:
    """Demand = die + card per good, removed from the cheapest occupied space up; excess ignored."""
    card = state.eu_card or ""
    effect = card_effect(state, card, data.EUROPE_CARDS)
    removed = [min(max(0, state.eu_dice[g] + effect[g]), state.europe[g]) for g in range(4)]
    return ev.EuropeDemanded(card=card, removed=(removed[0], removed[1], removed[2], removed[3]))


def _subsets(goods: Goods) -> list[Goods]:
    return [(a, b, c, d) for a, b, c, d in product(*(range(n + 1) for n in goods))]


def warehouse_sales(state: State, seat: int) -> list[SellFromWarehouse]:
    """Any part of the warehouse's goods (the rest stays stored)."""
    return [SellFromWarehouse(goods=g) for g in _subsets(state.players[seat].warehouse)]


def decide_sell_from_warehouse(state: State, seat: int, command: SellFromWarehouse) -> list[ev.EicEvent]:
    """Sell stored goods first, in initiative order, before any ship is unloaded."""
    require_step(state, seat, "warehouse")
    stored = state.players[seat].warehouse
    require(
        all(0 <= n <= s for n, s in zip(command.goods, stored, strict=True)),
        "not_stored",
        "sell only stored goods",
    )
    income, _, _ = sale(state, seat, command.goods)
    return [ev.GoodsSold(player=seat, ship="", sold=command.goods, stored=NO_GOODS, income=income)]


def unload_speed(state: State) -> int:
    """The fastest speed among ships still carrying goods (0 when none is left)."""
    return max((speed(s.id) for p in state.players for s in p.ships if sum(s.cargo)), default=0)


def ships_to_unload(state: State, p: int, at: int) -> tuple[str, ...]:
    """The player's loaded ships of speed ``at``, in harbour order (leftmost first)."""
    return tuple(s.id for s in state.players[p].ships if sum(s.cargo) and speed(s.id) == at)


def unloadings(state: State, seat: int) -> list[UnloadShip]:
    """Any loaded ship of the current speed; any part of its cargo that fits the warehouses is stored."""
    player = state.players[seat]
    room = warehouse_capacity(player) - sum(player.warehouse)
    out: list[UnloadShip] = []
    for ship_id in ships_to_unload(state, seat, unload_speed(state)):
        cargo = next(s.cargo for s in player.ships if s.id == ship_id)
        out.extend(UnloadShip(ship=ship_id, store=g) for g in _subsets(cargo) if sum(g) <= room)
    return out


def decide_unload_ship(state: State, seat: int, command: UnloadShip) -> list[ev.EicEvent]:
    """A whole ship at a time: what is not stored is sold, each cube on the lowest empty space."""
    require_step(state, seat, "unload")
    require(
        command.ship in ships_to_unload(state, seat, unload_speed(state)),
        "not_now",
        "ships unload fastest first; choose one of your loaded ships of the current speed",
    )
    player = state.players[seat]
    cargo = next(s.cargo for s in player.ships if s.id == command.ship)
    store = command.store
    require(
        all(0 <= n <= c for n, c in zip(store, cargo, strict=True)), "not_on_board", "store only the cargo"
    )
    room = warehouse_capacity(player) - sum(player.warehouse)
    require(sum(store) <= room, "warehouse_full", f"your warehouses hold {room} more goods")
    sold = add_goods(cargo, store, -1)
    income, _, _ = sale(state, seat, sold)
    return [ev.GoodsSold(player=seat, ship=command.ship, sold=sold, stored=store, income=income)]


def neutral_sells_warehouse(state: State) -> ev.GoodsSold:
    """2 players: the neutral always sells all it has stored."""
    n = state.neutral
    goods = state.players[n].warehouse
    income, _, _ = sale(state, n, goods)
    return ev.GoodsSold(player=n, ship="", sold=goods, stored=NO_GOODS, income=income)


def neutral_unloads(state: State) -> ev.GoodsSold:
    """The neutral's leftmost ship of the speed sells all; it stores only goods the full market refuses."""
    n = state.neutral
    player = state.players[n]
    ship_id = ships_to_unload(state, n, unload_speed(state))[0]
    cargo = next(s.cargo for s in player.ships if s.id == ship_id)
    room = warehouse_capacity(player) - sum(player.warehouse)
    side = market_side(state)
    store = [0, 0, 0, 0]
    for good in range(4):
        excess = max(0, cargo[good] - (len(data.EUROPE[side][good]) - state.europe[good]))
        store[good] = min(excess, room)
        room -= store[good]
    stored: Goods = (store[0], store[1], store[2], store[3])
    sold = add_goods(cargo, stored, -1)
    income, _, _ = sale(state, n, sold)
    return ev.GoodsSold(player=n, ship=ship_id, sold=sold, stored=stored, income=income)
