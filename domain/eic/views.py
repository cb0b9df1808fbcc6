"""What each viewer may see (rulebook: Influence cards, face-down ships and undrawn cards are secret)."""

from __future__ import annotations

import msgspec
from msgspec.structs import replace

from domain.eic import data
from domain.eic import events as ev
from domain.eic.board import share_value, ship_owner
from domain.eic.state import Goods, Ship, State


class ShipView(msgspec.Struct, frozen=True, kw_only=True):
    """A ship tile; ``kind`` and ``id`` are None for another seated player's ship that lies face down,
    or is in its owner's hand in phase C (see ``_ships``)."""

    id: str | None
    kind: str | None
    cargo: Goods
    zone: int
    face_down: bool


class PlayerView(msgspec.Struct, frozen=True, kw_only=True):
    """One company as the viewer sees it (everything but which ship lies where face down is public)."""

    treasury: int
    income: int
    income_marker: int
    ships: tuple[ShipView, ...]
    unseen_kinds: tuple[str, ...]
    """The kinds of the ships listed without id (public: one knows a player's tiles, not where each is)."""
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


def _ship(ship: Ship) -> ShipView:
    return ShipView(id=ship.id, kind=ship.kind, cargo=ship.cargo, zone=ship.zone, face_down=ship.face_down)


def _unseen(state: State, ship: Ship) -> bool:
    """Whether others cannot tell this ship of a seated player apart from its fellows: it lies face down,
    or it is in its owner's hand in phase C ("Jeder Spieler nimmt sich nun die Schiffe aus seinem
    Hafen", then lays them face down one by one). Which of them went where is the secret."""
    return ship.face_down or (state.phase == "C" and ship.zone == 0)


def _ships(state: State, owner: int, seat: int | None) -> tuple[tuple[ShipView, ...], tuple[str, ...]]:
    """The ships as ``seat`` sees them, and the kinds it cannot place (sorted).

    For others the places of a seated player's unseen ships hold them without id or kind, sorted by
    where they lie: in harbour order they would tell which ship was sent (issue 17, finding 9). Which
    places are unseen does not depend on that choice. The neutral's ships are public: the rulebook
    sends its leftmost ship.
    """
    ships = state.players[owner].ships
    if owner == seat or owner >= state.seats:
        return tuple(_ship(s) for s in ships), ()
    unseen = sorted((s for s in ships if _unseen(state, s)), key=lambda s: (s.zone, s.face_down, s.cargo))
    anonymous = iter(
        ShipView(id=None, kind=None, cargo=s.cargo, zone=s.zone, face_down=s.face_down) for s in unseen
    )
    shown = tuple(next(anonymous) if _unseen(state, s) else _ship(s) for s in ships)
    return shown, tuple(sorted(s.kind for s in unseen))


def _player(state: State, owner: int, seat: int | None) -> PlayerView:
    player = state.players[owner]
    ships, unseen_kinds = _ships(state, owner, seat)
    return PlayerView(
        treasury=player.treasury,
        income=player.income,
        income_marker=player.income_marker,
        ships=ships,
        unseen_kinds=unseen_kinds,
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


def _shown(state: State, ship_id: str, seat: int | None) -> bool:
    """A face-down ship's id in a zone stack: seen by its owner; the neutral's are public."""
    owner = ship_owner(ship_id)
    return owner == seat or owner >= state.seats


def view(state: State, seat: int | None) -> View:
    """Everything public, plus the viewer's own secrets."""
    zones = tuple(tuple(i if _shown(state, i, seat) else None for i in z) for z in state.zones)
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
        players=tuple(_player(state, i, seat) for i in range(state.companies)),
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
    """The event as ``seat`` may see it: secret cards and other seated players' face-down ships become
    None; everything public (zone, travel cost, the neutral's ship) stays."""
    if isinstance(event, ev.MarketCardChosen) and seat not in event.viewers:
        return replace(event, card=None)
    if isinstance(event, ev.MarketCardsDrawn):
        fe = event.fe_card if seat in event.fe_viewers else None
        eu = event.eu_card if seat in event.eu_viewers else None
        return replace(event, fe_card=fe, eu_card=eu)
    if isinstance(event, ev.ShipSent) and seat != event.player and not event.destination:
        return replace(event, ship=None)  # the neutral's ship (drawn destination) is its leftmost: public
    return event
