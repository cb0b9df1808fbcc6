"""What each viewer may see (rulebook: Influence cards, face-down ships and undrawn cards are secret)."""

from __future__ import annotations

import msgspec
from msgspec.structs import replace

from domain.eic import data
from domain.eic import events as ev
from domain.eic.state import Goods, Player, Ship, State, share_value, ship_owner


class ShipView(msgspec.Struct, frozen=True, kw_only=True):
    """A ship tile; ``kind`` and ``id`` are None while it lies face down and is not the viewer's."""

    id: str | None
    kind: str | None
    cargo: Goods
    zone: int
    face_down: bool


class PlayerView(msgspec.Struct, frozen=True, kw_only=True):
    """One company as the viewer sees it (everything but face-down ships is public)."""

    treasury: int
    income: int
    income_marker: int
    ships: tuple[ShipView, ...]
    extensions: int
    warehouse: Goods
    posts: tuple[str, ...]
    envoys: tuple[str, ...]
    shares: tuple[int, ...]
    pledged: int


class View(msgspec.Struct, frozen=True, kw_only=True):
    """The table for one seat (or a spectator: ``seat`` None)."""

    seat: int | None
    board_data: str
    seats: int
    pledging: bool
    epoch: int
    phase: str
    step: str
    actor: int
    initiative: tuple[int, ...]
    stock: tuple[int, ...]
    share_values: tuple[int, ...]
    exchange: tuple[int, ...]
    supply: Goods
    far_east: Goods
    europe: Goods
    fe_dice: Goods
    eu_dice: Goods
    occupants: tuple[tuple[int, ...], ...]
    players: tuple[PlayerView, ...]
    zones: tuple[tuple[str | None, ...], ...]
    zone_owners: tuple[tuple[int, ...], ...]
    left: tuple[tuple[str, ...], ...]
    queue: tuple[str, ...]
    fe_card: str | None
    eu_card: str | None
    ranking: tuple[int, ...]
    scores: tuple[int, ...]


def _ship(ship: Ship, owner: int, seat: int | None) -> ShipView:
    hidden = ship.face_down and owner != seat
    return ShipView(
        id=None if hidden else ship.id,
        kind=None if hidden else ship.kind,
        cargo=ship.cargo,
        zone=ship.zone,
        face_down=ship.face_down,
    )


def _player(player: Player, owner: int, seat: int | None) -> PlayerView:
    return PlayerView(
        treasury=player.treasury,
        income=player.income,
        income_marker=player.income_marker,
        ships=tuple(_ship(s, owner, seat) for s in player.ships),
        extensions=player.extensions,
        warehouse=player.warehouse,
        posts=player.posts,
        envoys=player.envoys,
        shares=player.shares,
        pledged=player.pledged,
    )


def _card(state: State, seat: int | None, card: str | None, revealed: bool, space: str) -> str | None:
    """A market card is seen once revealed, or by seated players with an envoy on its Influence space."""
    if card is None or revealed or state.phase == "over":
        return card
    occupants = state.occupants[data.SPACE_IDS.index(space)] if state.occupants else ()
    return card if seat is not None and seat in occupants and seat != state.neutral else None


def view(state: State, seat: int | None) -> View:
    """Everything public, plus the viewer's own secrets."""
    zones = tuple(tuple(i if ship_owner(i) == seat else None for i in z) for z in state.zones)
    return View(
        seat=seat,
        board_data=data.BOARD_DATA,
        seats=state.seats,
        pledging=state.pledging,
        epoch=state.epoch,
        phase=state.phase,
        step=state.step,
        actor=state.actor,
        initiative=state.initiative,
        stock=state.stock,
        share_values=tuple(share_value(state, c) for c in range(state.companies)),
        exchange=state.exchange,
        supply=state.supply,
        far_east=state.far_east,
        europe=state.europe,
        fe_dice=state.fe_dice,
        eu_dice=state.eu_dice,
        occupants=state.occupants,
        players=tuple(_player(p, i, seat) for i, p in enumerate(state.players)),
        zones=zones,
        zone_owners=tuple(tuple(ship_owner(i) for i in z) for z in state.zones),
        left=state.left,
        queue=state.queue,
        fe_card=_card(state, seat, state.fe_card, state.fe_revealed, "GOV_INFLUENCE_FE"),
        eu_card=_card(state, seat, state.eu_card, state.eu_revealed, "INV_INFLUENCE_EU"),
        ranking=state.ranking,
        scores=state.scores,
    )


def redact(event: ev.EicEvent, seat: int | None) -> ev.EicEvent | None:
    """The event as ``seat`` may see it: secret cards and face-down ships of others become None."""
    if isinstance(event, ev.MarketCardChosen) and seat not in event.viewers:
        return replace(event, card=None)
    if isinstance(event, ev.MarketCardsDrawn):
        fe = event.fe_card if seat in event.fe_viewers else None
        eu = event.eu_card if seat in event.eu_viewers else None
        return replace(event, fe_card=fe, eu_card=eu)
    if isinstance(event, ev.ShipSent) and seat != event.player:
        return replace(event, ship=None)
    return event
