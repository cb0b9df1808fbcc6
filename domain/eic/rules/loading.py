"""Phase D, "Verladen": Far East supply, ships revealed onto the loading track, goods bought."""

from __future__ import annotations

from domain.eic import data
from domain.eic import events as ev
from domain.eic.board import find_ship, has_post, market_side, purchase_cost, ship_owner
from domain.eic.commands import LeaveShipInFarEast, LoadShip
from domain.eic.rules.common import require, require_step
from domain.eic.state import Goods, State
from domain.engine import Command


def card_effect(state: State, card: str, table: dict[str, tuple[int, Goods, Goods]]) -> Goods:
    """A card's modifier per good; the 4-player symbol counts only with four (rulebook, C)."""
    _, base, four = table[card]
    extra = four if state.seats == 4 else (0, 0, 0, 0)
    return (base[0] + extra[0], base[1] + extra[1], base[2] + extra[2], base[3] + extra[3])


def far_east_supply(state: State) -> ev.FarEastSupplied:
    """Supply = die + card per good, onto the empty spaces from the dearest down; surplus ignored."""
    card = state.fe_card or ""
    effect = card_effect(state, card, data.FAR_EAST_CARDS)
    side = market_side(state)
    added = []
    for good in range(4):
        wanted = max(0, state.fe_dice[good] + effect[good])
        room = len(data.FAR_EAST[side][good]) - state.far_east[good]
        added.append(min(wanted, room, state.supply[good]))
    return ev.FarEastSupplied(card=card, added=(added[0], added[1], added[2], added[3]))


def speed(ship_id: str) -> int:
    """The printed speed of a ship."""
    return data.SHIP_TYPES[ship_id.split(":", 1)[1]].speed


def reveal(state: State, zone: int) -> ev.ShipsRevealed:
    """Ships left last epoch load first, in stack order; then the new ships by speed.

    The zone's stack is revealed from the top; a ship joining an occupied section of the loading track
    is put on top, and the topmost ship of a section buys first, so within one speed the ship placed
    into the zone earliest buys first (rulebook, D, steps 1–3 and "Kaufen und Verladen").
    """
    sent = state.zones[zone - 1]
    new = sorted(range(len(sent)), key=lambda i: (-speed(sent[i]), i))
    return ev.ShipsRevealed(zone=zone, order=(*state.left[zone - 1], *(sent[i] for i in new)))


def head(state: State) -> tuple[int, str, int]:
    """(owner, ship id, tonnage) of the ship first on the loading track."""
    ship_id = state.queue[0]
    return ship_owner(ship_id), ship_id, data.SHIP_TYPES[ship_id.split(":", 1)[1]].tonnage


def _cargo(good: int, count: int, other: int, other_count: int) -> Goods:
    goods = [0, 0, 0, 0]
    goods[good] += count
    goods[other] += other_count
    return (goods[0], goods[1], goods[2], goods[3])


def _running_costs(state: State, seat: int, good: int, most: int) -> list[int]:
    """Cost of buying 0, 1, … ``most`` cubes of one good (cheapest occupied space first): what
    ``purchase_cost`` asks for each count, summed cube by cube once rather than again for every count."""
    discount = 1 if has_post(state.players[seat], state.zone) else 0
    prices = data.FAR_EAST[market_side(state)][good]
    filled = state.far_east[good]
    costs = [0]
    for taken in range(most):
        costs.append(costs[taken] + max(0, prices[filled - 1 - taken] - discount))
    return costs


def loads(state: State, seat: int) -> list[Command]:
    """Every mix of the zone's two goods up to the tonnage that the market holds and one can pay."""
    _, _, tonnage = head(state)
    tea, other = data.TEA, data.ZONE_GOODS[state.zone - 1][0]
    money = state.players[seat].treasury
    tea_costs = _running_costs(state, seat, tea, min(tonnage, state.far_east[tea]))
    other_costs = _running_costs(state, seat, other, min(tonnage, state.far_east[other]))
    out: list[Command] = []
    for t, tea_cost in enumerate(tea_costs):
        for o in range(min(tonnage - t, len(other_costs) - 1) + 1):
            if tea_cost + other_costs[o] <= money:
                out.append(LoadShip(goods=_cargo(tea, t, other, o)))
    if money >= data.LEAVE_IN_FAR_EAST_COST:
        out.append(LeaveShipInFarEast())
    return out


def decide_load_ship(state: State, seat: int, command: LoadShip) -> list[ev.EicEvent]:
    """Buy goods of the zone's kinds, each at its space's price (−1 with a post), up to the tonnage."""
    require_step(state, seat, "load")
    _, ship_id, tonnage = head(state)
    allowed = set(data.ZONE_GOODS[state.zone - 1])
    goods = command.goods
    require(all(n >= 0 for n in goods), "bad_goods", "goods are counted from zero")
    require(
        all(n == 0 or g in allowed for g, n in enumerate(goods)), "wrong_goods", "buy only the zone's goods"
    )
    require(sum(goods) <= tonnage, "over_tonnage", f"this ship carries {tonnage} goods")
    require(
        all(n <= state.far_east[g] for g, n in enumerate(goods)), "market_empty", "not enough goods there"
    )
    cost = purchase_cost(state, seat, state.zone, goods)
    require(cost <= state.players[seat].treasury, "cannot_afford", f"these goods cost {cost} GS")
    return [ev.ShipLoaded(player=seat, ship=ship_id, goods=goods, cost=cost)]


def decide_leave_ship(state: State, seat: int, command: LeaveShipInFarEast) -> list[ev.EicEvent]:
    """Pay 1 (Cartography does not help) and leave the ship face up in the zone."""
    require_step(state, seat, "load")
    cost = data.LEAVE_IN_FAR_EAST_COST
    require(state.players[seat].treasury >= cost, "cannot_afford", "leaving a ship costs 1 GS")
    return [ev.ShipLeftInFarEast(player=seat, ship=head(state)[1])]


def neutral_loads(state: State) -> ev.ShipLoaded:
    """2 players: primary good first, then tea, up to the tonnage, for free (rulebook, 2 players, D)."""
    owner, ship_id, tonnage = head(state)
    primary = data.NEUTRAL_PRIMARY_GOOD[state.zone - 1]
    first = min(tonnage, state.far_east[primary])
    tea = min(tonnage - first, state.far_east[data.TEA])
    assert find_ship(state.players[owner], ship_id) >= 0
    return ev.ShipLoaded(player=owner, ship=ship_id, goods=_cargo(primary, first, data.TEA, tea), cost=0)
