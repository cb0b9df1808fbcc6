"""What a viewer sees: everything is open except the order of the undrawn sailing cards."""

from __future__ import annotations

import msgspec

from domain.elcapitan import events as ev
from domain.elcapitan.rules import to_act
from domain.elcapitan.state import CityState, PlayerState, Stage, State, TurnState
from domain.engine import Outcome, Seat


class DeckView(msgspec.Struct, frozen=True, kw_only=True):
    """A sailing-card pile as everyone sees it: the display and discards open, the draw pile a count."""

    display: tuple[str, ...]
    discard: tuple[str, ...]
    draw_count: int


class View(msgspec.Struct, frozen=True, kw_only=True):
    """The table as seen by a player or a spectator (the same for both: nothing is private)."""

    viewer: int | None
    seats: int
    expansions: tuple[str, ...]
    phase: int
    round: int
    start_player: int
    current: int
    stage: Stage
    to_act: tuple[int, ...]
    cities: tuple[CityState, ...]
    players: tuple[PlayerState, ...]
    destinations: DeckView
    interconnections: DeckView
    pool_warehouses: tuple[int, ...]
    pool_fortresses: tuple[int, ...]
    removed: tuple[int, ...]
    bonus_left: tuple[int, ...]
    pirate: str
    turn: TurnState
    phase_ending: bool
    settlers: tuple[int, ...]
    chooser: int
    result: Outcome | None


def _deck(display: tuple[str, ...], discard: tuple[str, ...], draw: int) -> DeckView:
    return DeckView(display=display, discard=discard, draw_count=draw)


def view(state: State, seat: Seat | None) -> View:
    """The projection for ``seat`` (None: a spectator); draw piles show only their size."""
    d, i = state.destinations, state.interconnections
    return View(
        viewer=seat,
        seats=state.seats,
        expansions=state.expansions,
        phase=state.phase,
        round=state.round,
        start_player=state.start_player,
        current=state.current,
        stage=state.stage,
        to_act=tuple(sorted(to_act(state))),
        cities=state.cities,
        players=state.players,
        destinations=_deck(d.display, d.discard, len(d.draw)),
        interconnections=_deck(i.display, i.discard, len(i.draw)),
        pool_warehouses=state.pool_warehouses,
        pool_fortresses=state.pool_fortresses,
        removed=state.removed,
        bonus_left=state.bonus_left,
        pirate=state.pirate,
        turn=state.turn,
        phase_ending=state.phase_ending,
        settlers=state.settlers,
        chooser=state.chooser,
        result=state.result,
    )


def redact(event: ev.ElCapitanEvent, seat: Seat | None) -> ev.ElCapitanEvent | None:
    """The event as a viewer may see it: a shuffle never shows the new order, to players or spectators.

    Drawn cards are revealed by ``CardsRevealed`` only when they are drawn; ``GameEnded`` reveals the rest.
    """
    if isinstance(event, ev.DeckShuffled) and event.order is not None:
        return msgspec.structs.replace(event, order=None)
    return event
