"""Board arithmetic of East India Companies, shared by the rules, ``evolve``, the bots and the views: pure
functions of the state (``state.py`` holds only the Structs).

Its own module so that mypyc compiles it with the rules (``services/move_path.py``): the Structs cannot
be, and every event folded and most commands listed pass through these (issue 45).
"""

from __future__ import annotations

from typing import Any

from msgspec.structs import replace

from domain.eic import data
from domain.eic.state import Goods, Player, Ship, State


def market_side(state: State) -> int:
    """Which side of the market boards is up: 4 players, or the 2–3-player back (rulebook, set-up)."""
    return 4 if state.seats == 4 else 3


def ship_owner(ship_id: str) -> int:
    """The player a ship tile belongs to (ids are ``"<player>:<kind>"``)."""
    return int(ship_id.split(":", 1)[0])


def ship_kind(ship_id: str) -> str:
    """The printed tile of a ship id."""
    return ship_id.split(":", 1)[1]


def find_ship(player: Player, ship_id: str) -> int:
    """Index of a ship in the player's harbour order, or -1."""
    for index, ship in enumerate(player.ships):
        if ship.id == ship_id:
            return index
    return -1


def docks(player: Player) -> int:
    """Two docks plus one per harbour extension (rulebook, Hafenerweiterungen)."""
    return data.BASE_DOCKS + player.extensions


def warehouse_capacity(player: Player) -> int:
    """2 goods with the level-1 extension, 1 more with level 2."""
    return sum(data.WAREHOUSE[: player.extensions])


def share_value(state: State, company: int) -> int:
    """The value under the company's marker on the stock exchange track."""
    return data.STOCK_VALUES[state.stock[company]]


def clamp_stock(space: int) -> int:
    """The marker never leaves the track."""
    return max(0, min(len(data.STOCK_VALUES) - 1, space))


_ZONE_OF_SITE: dict[str, int] = {
    site: zone for zone, sites in enumerate(data.SITES, start=1) for site in sites
}
"""Each site's zone, looked up once: every Far East price asks it (``purchase_cost`` via ``has_post``)."""


def post_zone(site: str) -> int:
    """The zone (1–3) a trading-post site lies in."""
    zone = _ZONE_OF_SITE.get(site)
    if zone is None:
        raise ValueError(site)
    return zone


def has_post(player: Player, zone: int) -> bool:
    """A trading post in ``zone`` lowers every good bought there by 1 (rulebook, D)."""
    return any(post_zone(site) == zone for site in player.posts)


def abilities(state: State, player: int, space: str) -> bool:
    """Whether ``player``'s envoy stands on ``space`` this epoch (neutral envoys activate nothing)."""
    return player != state.neutral and player in state.occupants[data.SPACE_IDS.index(space)]


def purchase_cost(state: State, player: int, zone: int, goods: Goods) -> int:
    """Far East price of ``goods``: each cube from the cheapest occupied space, −1 with a post, ≥ 0."""
    discount = 1 if has_post(state.players[player], zone) else 0
    side = market_side(state)
    total = 0
    for good, count in enumerate(goods):
        prices = data.FAR_EAST[side][good]
        filled = state.far_east[good]
        for taken in range(count):
            total += max(0, prices[filled - 1 - taken] - discount)
    return total


def sale(state: State, player: int, goods: Goods) -> tuple[int, Goods, Goods]:
    """Selling ``goods`` in Europe: (income, new Europe market, new supply).

    Each cube goes on the lowest empty space at its price, or for 1 to the supply when the column is
    full; Trade adds 1 per cube of its good (rulebook, E; eic.md D2: Trade is free and also applies to
    the full-market price of 1).
    """
    side = market_side(state)
    europe, supply, income = list(state.europe), list(state.supply), 0
    for good, count in enumerate(goods):
        bonus = 1 if any(abilities(state, player, s) for s, g in data.TRADE_GOOD.items() if g == good) else 0
        prices = data.EUROPE[side][good]
        for _ in range(count):
            if europe[good] < len(prices):
                income += prices[europe[good]] + bonus
                europe[good] += 1
            else:
                income += data.FULL_MARKET_PRICE + bonus
                supply[good] += 1
    return income, _goods(europe), _goods(supply)


def _goods(values: list[int]) -> Goods:
    return (values[0], values[1], values[2], values[3])


def add_goods(a: Goods, b: Goods, sign: int = 1) -> Goods:
    """Element-wise ``a + sign * b``."""
    return (a[0] + sign * b[0], a[1] + sign * b[1], a[2] + sign * b[2], a[3] + sign * b[3])


def with_player(state: State, index: int, **changes: Any) -> State:
    """The state with one player's fields replaced."""
    players = list(state.players)
    players[index] = replace(players[index], **changes)
    return replace(state, players=tuple(players))


def set_item(values: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    """A tuple with one item replaced."""
    return (*values[:index], value, *values[index + 1 :])


def origin(position: str) -> str:
    """Where an envoy may move from: ``any`` or a personality."""
    return "any" if position == "any" else position.split(":", 1)[1]


def portrait(position: str) -> str:
    """Envoys stand on the portrait of the personality they served (rulebook, F: next epoch)."""
    if position.startswith("S:"):
        return f"P:{data.SPACE_OWNER[position[2:]]}"
    source = origin(position)
    return "any" if source == "any" else f"P:{source}"


# --- ships moving in and out of a harbour (used by evolve) -----------------------------------------------


def drop_ship(state: State, ship_id: str) -> State:
    """A ship goes back to the box, its cargo (if any) to the supply, out of any zone stack."""
    owner = ship_owner(ship_id)
    player = state.players[owner]
    ship = player.ships[find_ship(player, ship_id)]
    ships = tuple(s for s in player.ships if s.id != ship_id)
    state = with_player(state, owner, ships=ships)
    return replace(
        state,
        supply=add_goods(state.supply, ship.cargo),
        zones=tuple(tuple(i for i in z if i != ship_id) for z in state.zones),
        left=tuple(tuple(i for i in z if i != ship_id) for z in state.left),
    )


def gain_ship(state: State, owner: int, kind: str, discard: str) -> State:
    """A new tile on the dock ``discard`` frees (rulebook, Schiff: "eine deiner Anlegestellen freimachen"),
    or on the first free dock from the left: after the ships at home, before those away, or (rules 2)
    the first dock the Galleons left free between ships at home ("Das neue Schiff legt ihr an die erste
    freie Anlegestelle")."""
    player = state.players[owner]
    dock = sum(1 for s in player.ships if s.zone == 0)
    free_docks = player.free_docks
    if discard and player.ships[find_ship(player, discard)].zone == 0:
        dock = find_ship(player, discard)
    elif free_docks:  # home ships fill the docks before the first free one: its dock is its index
        dock, free_docks = free_docks[0], free_docks[1:]
    if discard:
        state = drop_ship(state, discard)
        player = state.players[owner]
    new = Ship(id=f"{owner}:{kind}", kind=kind, gained=state.epoch)
    ships = (*player.ships[:dock], new, *player.ships[dock:])
    return with_player(
        state, owner, ships=ships, used_tiles=(*player.used_tiles, kind), free_docks=free_docks
    )


def drop_galleons(state: State) -> State:
    """The start of epoch 5: "Zu Beginn von Epoche 5 legt ihr alle Galeonen ab."

    Rules 1 closed the gaps (the ships left slid to the left); rules 2 keeps each ship on its dock and
    notes the docks left free before the last ship at home (``Player.free_docks``).
    """
    for p, player in enumerate(state.players):
        home = [s for s in player.ships if s.zone == 0]
        kept = [i for i, s in enumerate(home) if s.kind not in data.GALLEONS]
        if state.rules != 1 and kept:
            gaps = tuple(i for i, s in enumerate(home) if s.kind in data.GALLEONS and i < kept[-1])
            state = with_player(state, p, free_docks=gaps)
        for ship in player.ships:
            if ship.kind in data.GALLEONS:
                state = drop_ship(state, ship.id)
    return state


def update_ship(state: State, ship_id: str, **changes: Any) -> State:
    """The state with one ship's fields replaced."""
    owner = ship_owner(ship_id)
    player = state.players[owner]
    index = find_ship(player, ship_id)
    ships = set_item(player.ships, index, replace(player.ships[index], **changes))
    return with_player(state, owner, ships=ships)


def dock_ship(state: State, ship_id: str) -> State:
    """A returning ship takes the first free dock from the left: after the ships already at home
    (rulebook, 2 players, D; "leftmost" matters for the neutral's sending and unloading)."""
    owner = ship_owner(ship_id)
    ships = state.players[owner].ships
    home = tuple(s for s in ships if s.zone == 0)
    away = tuple(s for s in ships if s.zone != 0)
    returning = tuple(s for s in away if s.id == ship_id)
    rest = tuple(s for s in away if s.id != ship_id)
    return with_player(state, owner, ships=(*home, *returning, *rest))


def send_ship(state: State, player: int, ship_id: str | None, zone: int) -> State:
    """A ship goes face down onto a zone's stack.

    ``ship_id`` is None when another seated player's ship is folded from a redacted ``ShipSent``: the
    viewer knows the zone but not the ship, so a stand-in (the first ship still at home) goes there;
    ``reveal_ships`` puts the real ship in its place when the zone is revealed.
    """
    if ship_id is None:
        ship_id = next(s.id for s in state.players[player].ships if s.zone == 0)
    state = update_ship(state, ship_id, zone=zone, face_down=True)
    return replace(state, zones=set_item(state.zones, zone - 1, (*state.zones[zone - 1], ship_id)))


def reveal_ships(state: State, zone: int, order: tuple[str, ...]) -> State:
    """A zone's ships turn face up. In a viewer's fold with stand-ins (``send_ship``) a revealed ship may
    lie face down in another zone: it swaps places with a stand-in of its owner in this zone."""
    for ship_id in order:
        player = state.players[ship_owner(ship_id)]
        ship = player.ships[find_ship(player, ship_id)]
        if ship.zone != zone:
            stand_in = next(
                s.id for s in player.ships if s.zone == zone and s.face_down and s.id not in order
            )
            state = _swap_places(state, ship_id, stand_in)
        state = update_ship(state, ship_id, face_down=False)
    return state


def _swap_places(state: State, a: str, b: str) -> State:
    """Ships ``a`` and ``b`` (face down, one owner) exchange zones and places in the zone stacks."""
    player = state.players[ship_owner(a)]
    zone_a, zone_b = (player.ships[find_ship(player, i)].zone for i in (a, b))
    state = update_ship(update_ship(state, a, zone=zone_b), b, zone=zone_a)
    swapped = {a: b, b: a}
    return replace(state, zones=tuple(tuple(swapped.get(i, i) for i in z) for z in state.zones))
