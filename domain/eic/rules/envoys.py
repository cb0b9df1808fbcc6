"""Phase A, "Gesandte einsetzen": envoy placement, abilities paid at once, the neutral's envoy cards."""

from __future__ import annotations

from functools import cache

from domain.eic import data
from domain.eic import events as ev
from domain.eic.board import docks
from domain.eic.commands import PlaceEnvoy, RecallEnvoy
from domain.eic.rules.common import refuse, require, require_step
from domain.eic.state import Player, Ship, State
from domain.engine import Rng


@cache
def reachable(position: str) -> tuple[str, ...]:
    """Spaces an envoy may go to: anywhere in epoch 1 or from the central zone, else its portrait's
    personality and the two neighbours in the ring (rulebook, "Beschränkungen beim Einsetzen")."""
    if position == "any" or position.startswith("C:"):
        return data.SPACE_IDS
    ring = data.PERSONALITIES
    i = ring.index(position.split(":", 1)[1])
    near = {ring[i], ring[(i - 1) % len(ring)], ring[(i + 1) % len(ring)]}
    return tuple(s for s, who in data.SPACES if who in near)


@cache
def _reachable_set(position: str) -> frozenset[str]:
    return frozenset(reachable(position))


def unplaced(player: Player) -> tuple[int, ...]:
    """Envoys still to be placed this epoch (on a portrait, in the supply or in the central zone)."""
    return tuple(i for i, e in enumerate(player.envoys) if not e.startswith(("S:", "R:")))


def fee_payees(state: State, space: str) -> tuple[int, ...]:
    """Everybody already on ``space`` receives 1 (the neutral's coin goes to the supply)."""
    return state.occupants[data.SPACE_IDS.index(space)]


def free_sites(state: State, zone: int) -> tuple[str, ...]:
    """Unoccupied seal spaces of a zone; Bombay and Formosa are closed with 2–3 players."""
    taken = {site for p in state.players for site in p.posts}
    closed = data.CLOSED_SITES_FEW_PLAYERS if state.seats < 4 else ()
    return tuple(s for s in data.SITES[zone - 1] if s not in taken and s not in closed)


def _site_options(state: State, player: Player) -> list[str]:
    if len(player.posts) >= data.TRADING_POSTS:
        return []
    own_zones = {z for z in (1, 2, 3) for s in player.posts if s in data.SITES[z - 1]}
    return [site for zone in (1, 2, 3) if zone not in own_zones for site in free_sites(state, zone)]


def _add_ship_options(out: list[PlaceEnvoy], state: State, player: Player, envoy: int, space: str,
                      budget: int) -> None:  # fmt: skip
    full = len(player.ships) >= docks(player)
    for kind in data.BUYABLE_SHIPS:
        ship = data.SHIP_TYPES[kind]
        if kind in player.used_tiles or ship.epoch > state.epoch or ship.cost > budget:
            continue
        if not full:
            out.append(PlaceEnvoy(envoy=envoy, space=space, ship=kind))
        else:
            for owned in player.ships:
                out.append(PlaceEnvoy(envoy=envoy, space=space, ship=kind, discard=owned.id))


def _add_ability_options(out: list[PlaceEnvoy], state: State, player: Player, envoy: int, space: str,
                         budget: int) -> None:  # fmt: skip
    """Every way to use ``space`` with ``budget`` left after the fees, appended to ``out`` (a list, not a
    generator: listing runs at every node of a search, issue 45)."""
    if space in _SHIP_SPACES:
        _add_ship_options(out, state, player, envoy, space, budget)
    elif space == "SHP_HARBOUR_EXT":
        if player.extensions < len(data.WAREHOUSE):
            out.append(PlaceEnvoy(envoy=envoy, space=space))
    elif space == "GOV_TRADING_POST":
        if budget >= data.TRADING_POST_COST:
            out.extend(
                PlaceEnvoy(envoy=envoy, space=space, site=site) for site in _site_options(state, player)
            )
    elif space == "CAP_EXPERTISE":
        if budget >= state.epoch:
            out.append(PlaceEnvoy(envoy=envoy, space=space))
    else:
        out.append(PlaceEnvoy(envoy=envoy, space=space))


_SHIP_SPACES = ("SHP_SHIP", "INV_SHIP")

_SPACE_INDEX: dict[str, int] = {space: i for i, space in enumerate(data.SPACE_IDS)}


@cache
def _targets(position: str) -> tuple[tuple[str, int, str], ...]:
    """(space, its index in ``data.SPACE_IDS``, the envoy position it makes) of each reachable space."""
    return tuple((space, _SPACE_INDEX[space], f"S:{space}") for space in reachable(position))


def _representatives(player: Player) -> dict[int, str]:
    """One unplaced envoy per distinct position (envoys on the same spot are interchangeable)."""
    out: dict[int, str] = {}
    for envoy in unplaced(player):
        if player.envoys[envoy] not in out.values():
            out[envoy] = player.envoys[envoy]
    return out


def _add_options_on(
    out: list[PlaceEnvoy], state: State, p: int, envoy: int, position: str, space: str
) -> None:
    """The placements of one envoy on one space (or the central zone), appended to ``out``."""
    player = state.players[p]
    if space == "central":
        if not position.startswith("C:"):
            out.append(PlaceEnvoy(envoy=envoy, space="central"))
        return
    if space not in _reachable_set(position) or f"S:{space}" in player.envoys:
        return
    budget = player.treasury - data.JOIN_FEE * len(fee_payees(state, space))
    if budget >= 0:
        _add_ability_options(out, state, player, envoy, space, budget)


def placements(state: State, p: int) -> list[PlaceEnvoy]:
    """Every legal placement for player ``p`` (one envoy per distinct position): each reachable space in
    ring order, then the central zone; ``_add_options_on`` for one space, with its lookups done once."""
    player = state.players[p]
    out: list[PlaceEnvoy] = []
    for envoy, position in _representatives(player).items():
        for space, index, placed in _targets(position):
            if placed in player.envoys:
                continue
            budget = player.treasury - data.JOIN_FEE * len(state.occupants[index])
            if budget >= 0:
                _add_ability_options(out, state, player, envoy, space, budget)
        if not position.startswith("C:"):
            out.append(PlaceEnvoy(envoy=envoy, space="central"))
    return out


def is_legal_placement(state: State, p: int, command: PlaceEnvoy) -> bool:
    """Whether ``command`` is one of ``placements`` up to the envoy's index: any unplaced envoy may be
    named, since envoys on the same spot are interchangeable (``placements`` lists one of them)."""
    player = state.players[p]
    if command.envoy not in unplaced(player):
        return False
    position = player.envoys[command.envoy]
    options: list[PlaceEnvoy] = []
    _add_options_on(options, state, p, command.envoy, position, command.space)
    return command in options


def recalls(state: State, p: int) -> list[RecallEnvoy]:
    """Only when no placement at all is possible may an envoy stay out (decision, see module docs)."""
    if placements(state, p):
        return []
    return [RecallEnvoy(envoy=i) for i in unplaced(state.players[p])]


def ability_cost(state: State, command: PlaceEnvoy) -> int:
    """What the ability itself costs, paid at once (rulebook, Details: Ship, Expertise, Trading post)."""
    if command.ship:
        return data.SHIP_TYPES[command.ship].cost
    if command.space == "GOV_TRADING_POST":
        return data.TRADING_POST_COST
    if command.space == "CAP_EXPERTISE":
        return state.epoch
    return 0


def decide_place_envoy(state: State, seat: int, command: PlaceEnvoy) -> list[ev.EicEvent]:
    """An envoy goes to an ability space (paying fees and cost) or to the central zone."""
    require_step(state, seat, "envoy")
    require(0 <= command.envoy < data.ENVOYS, "no_such_envoy", "each player has 3 envoys")
    if not is_legal_placement(state, seat, command):
        refuse("illegal_placement", _why(state, seat, command))
    if command.space == "central":
        return [ev.EnvoyPlaced(player=seat, envoy=command.envoy, space="central")]
    return [
        ev.EnvoyPlaced(
            player=seat,
            envoy=command.envoy,
            space=command.space,
            paid=fee_payees(state, command.space),
            cost=ability_cost(state, command),
            ship=command.ship,
            discard=command.discard,
            site=command.site,
        )
    ]


def _why(state: State, seat: int, command: PlaceEnvoy) -> str:
    player = state.players[seat]
    if command.envoy not in unplaced(player):
        return "that envoy was already placed this epoch and cannot move until the next"
    if command.space != "central" and command.space not in data.SPACE_IDS:  # mypyc: no `in (*a, b)`
        return f"no ability space {command.space!r}"
    if command.space != "central" and command.space not in reachable(player.envoys[command.envoy]):
        return "from its portrait an envoy reaches only that personality and its two neighbours"
    if f"S:{command.space}" in player.envoys:
        return "one may not have two own envoys on one ability space"
    return "the ability cannot be used so (cost, dock, site or availability), see rulebook, Details"


def decide_recall_envoy(state: State, seat: int, command: RecallEnvoy) -> list[ev.EicEvent]:
    """Only offered when no legal space is left for any of the player's envoys."""
    require_step(state, seat, "envoy")
    require(
        command in recalls(state, seat), "recall_not_allowed", "an envoy must be placed when a space is open"
    )
    return [ev.EnvoyRecalled(player=seat, envoy=command.envoy)]


# --- the neutral player (2 players) ----------------------------------------------------------------------


def oldest_ship(player: Player, fast: bool) -> str:
    """The neutral's ship to discard when no dock is free: "das älteste Schiff (das schnellste Schiff
    oder das mit der größten Tonnage, abhängig davon, ob der neutrale Spieler ein schnelles Schiff oder
    ein Schiff mit großer Tonnage bekommt)". Reading: the one gained earliest; among equally old ones the
    fastest when the new ship is the fast one, the largest when it is the large one; then the leftmost."""

    def age(entry: tuple[int, Ship]) -> tuple[int, int, int]:
        dock, ship = entry
        printed = data.SHIP_TYPES[ship.kind]
        return ship.gained, -(printed.speed if fast else printed.tonnage), dock

    return min(enumerate(player.ships), key=age)[1].id


def neutral_envoys(state: State, rng: Rng) -> ev.NeutralEnvoysPlaced:
    """Draw an envoy card and apply it top to bottom, then place the three envoys (rulebook, 2 players)."""
    n = state.neutral
    pool = [c for c in data.NEUTRAL_ENVOY_CARDS if c not in state.used_neutral_envoy_cards]
    card = rng.choice(pool)
    effects, spaces = data.NEUTRAL_ENVOY_CARDS[card]
    player = state.players[n]
    ship = discard = site = ""
    extension = False
    for effect in effects:
        if effect.startswith("ship_"):
            table = data.FASTEST_SHIP if effect == "ship_fastest" else data.LARGEST_SHIP
            kind = table[state.epoch]
            if kind not in player.used_tiles and not ship:
                ship = kind
                full = len(player.ships) >= docks(player) + int(extension)
                discard = oldest_ship(player, fast=effect == "ship_fastest") if full else ""
        elif effect == "harbour_ext":
            extension = player.extensions < len(data.WAREHOUSE)
        else:
            zone = int(effect[-1])
            sites = free_sites(state, zone)
            has_zone = any(s in data.SITES[zone - 1] for s in player.posts)
            if sites and len(player.posts) < data.TRADING_POSTS and not has_zone:
                site = sites[0]
    rewarded = tuple(q for s in spaces for q in fee_payees(state, s) if q != n)
    return ev.NeutralEnvoysPlaced(
        card=card,
        spaces=spaces,
        rewarded=rewarded,
        ship=ship,
        discard=discard,
        extension=extension,
        site=site,
    )
