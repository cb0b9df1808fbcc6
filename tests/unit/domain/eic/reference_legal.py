"""East India Companies' ``legal_commands`` as it was before issue 45 made it cheaper: the reference
``test_legal_listing_unchanged.py`` holds the listing to (same commands, same order). Copied from the rules
of commit aa6f285; only the listings that changed are copied, the rest are the rules' own."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from domain.eic import data
from domain.eic.board import docks, purchase_cost
from domain.eic.commands import LeaveShipInFarEast, LoadShip, PlaceEnvoy, RecallEnvoy, SellShares, SendShip
from domain.eic.rules import envoys, exchange, loading, navigation, selling
from domain.eic.rules.common import may_sell_shares
from domain.eic.state import Player, State
from domain.engine import Command


def _ship_options(state: State, player: Player, budget: int) -> Iterator[tuple[str, str]]:
    for kind in data.BUYABLE_SHIPS:
        ship = data.SHIP_TYPES[kind]
        if kind in player.used_tiles or ship.epoch > state.epoch or ship.cost > budget:
            continue
        if len(player.ships) < docks(player):
            yield kind, ""
        else:
            for owned in player.ships:
                yield kind, owned.id


def _site_options(state: State, player: Player) -> Iterator[str]:
    if len(player.posts) >= data.TRADING_POSTS:
        return
    own_zones = {z for z in (1, 2, 3) for s in player.posts if s in data.SITES[z - 1]}
    for zone in (1, 2, 3):
        if zone not in own_zones:
            yield from envoys.free_sites(state, zone)


def _ability_options(state: State, p: int, envoy: int, space: str, budget: int) -> Iterator[PlaceEnvoy]:
    player = state.players[p]
    if space in ("SHP_SHIP", "INV_SHIP"):
        for kind, discard in _ship_options(state, player, budget):
            yield PlaceEnvoy(envoy=envoy, space=space, ship=kind, discard=discard)
    elif space == "SHP_HARBOUR_EXT":
        if player.extensions < len(data.WAREHOUSE):
            yield PlaceEnvoy(envoy=envoy, space=space)
    elif space == "GOV_TRADING_POST":
        if budget >= data.TRADING_POST_COST:
            for site in _site_options(state, player):
                yield PlaceEnvoy(envoy=envoy, space=space, site=site)
    elif space == "CAP_EXPERTISE":
        if budget >= state.epoch:
            yield PlaceEnvoy(envoy=envoy, space=space)
    else:
        yield PlaceEnvoy(envoy=envoy, space=space)


def _representatives(player: Player) -> dict[int, str]:
    out: dict[int, str] = {}
    for envoy in envoys.unplaced(player):
        if player.envoys[envoy] not in out.values():
            out[envoy] = player.envoys[envoy]
    return out


def _options_on(state: State, p: int, envoy: int, position: str, space: str) -> Iterator[PlaceEnvoy]:
    player = state.players[p]
    if space == "central":
        if not position.startswith("C:"):
            yield PlaceEnvoy(envoy=envoy, space="central")
        return
    if space not in envoys.reachable(position) or f"S:{space}" in player.envoys:
        return
    budget = player.treasury - data.JOIN_FEE * len(envoys.fee_payees(state, space))
    if budget >= 0:
        yield from _ability_options(state, p, envoy, space, budget)


def placements(state: State, p: int) -> list[PlaceEnvoy]:
    out: list[PlaceEnvoy] = []
    for envoy, position in _representatives(state.players[p]).items():
        for space in (*envoys.reachable(position), "central"):
            out.extend(_options_on(state, p, envoy, position, space))
    return out


def recalls(state: State, p: int) -> list[RecallEnvoy]:
    if placements(state, p):
        return []
    return [RecallEnvoy(envoy=i) for i in envoys.unplaced(state.players[p])]


def free_actions(state: State, p: int) -> list[Command]:
    player = state.players[p]
    out: list[Command] = []
    if may_sell_shares(state):
        for c, held in enumerate(player.shares):
            out.extend(SellShares(company=c, count=n) for n in range(1, held + 1))
    return out + exchange.pledges(state, p)


def sendings(state: State, seat: int) -> list[SendShip]:
    money = state.players[seat].treasury
    return [
        SendShip(ship=s, zone=z)
        for s in navigation.in_harbour(state, seat)
        for z in (1, 2, 3)
        if navigation.travel_cost(state, seat, z) <= money
    ]


def _cargo(good: int, count: int, other: int, other_count: int) -> tuple[int, int, int, int]:
    goods = [0, 0, 0, 0]
    goods[good] += count
    goods[other] += other_count
    return (goods[0], goods[1], goods[2], goods[3])


def _running_costs(state: State, seat: int, good: int, most: int) -> list[int]:
    return [purchase_cost(state, seat, state.zone, _cargo(good, n, good, 0)) for n in range(most + 1)]


def loads(state: State, seat: int) -> list[Command]:
    _, _, tonnage = loading.head(state)
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


_STEP_COMMANDS: dict[str, Callable[[State, int], list[Any]]] = {
    "envoy": lambda s, p: placements(s, p) or recalls(s, p),
    "stock": exchange.buys,
    "influence_eu": navigation.card_choices,
    "influence_fe": navigation.card_choices,
    "navigate": sendings,
    "load": loads,
    "warehouse": selling.warehouse_sales,
    "unload": selling.unloadings,
}


def legal_commands(state: State, seat: int) -> list[Command]:
    """The listing before issue 45's change (``domain/eic/rules/__init__.py`` of commit aa6f285)."""
    if state.phase == "over" or not 0 <= seat < state.seats:
        return []
    if state.actor != seat:
        return exchange.pledges(state, seat)
    main: list[Command] = _STEP_COMMANDS[state.step](state, seat)
    return main + free_actions(state, seat)
