"""What a viewer sees: everything is open except whose shares are whose (S0: shares are dealt face
down, pledged shares lie face down). A seat sees its own shares; others and spectators see counts."""

from __future__ import annotations

import msgspec

from domain.engine import Outcome, Seat
from domain.manila import events as ev
from domain.manila.rules import to_act
from domain.manila.state import Boat, State


class PlayerView(msgspec.Struct, frozen=True, kw_only=True):
    """One merchant as the viewer sees him: ``shares``/``mortgaged`` None unless it is the viewer."""

    cash: int
    share_count: int
    mortgaged_count: int
    shares: tuple[str, ...] | None
    mortgaged: tuple[str, ...] | None


class View(msgspec.Struct, frozen=True, kw_only=True):
    """The table as seen by a seat or a spectator (``viewer`` None)."""

    viewer: int | None
    seats: int
    variant_boarding: bool
    voyage: int
    phase: str
    to_act: tuple[int, ...]
    harbour_master: int | None
    players: tuple[PlayerView, ...]
    supply: tuple[int, ...]
    market: tuple[int, ...]
    high_bid: int
    high_bidder: int | None
    dropped: tuple[bool, ...]
    boats: tuple[Boat, ...]
    rolls: int
    harbour: tuple[int | None, ...]
    shipyard: tuple[int | None, ...]
    pirates: tuple[int | None, ...]
    small_pilot: int | None
    big_pilot: int | None
    insurance: int | None
    pilot_turn: str
    plundered: tuple[str, ...]
    office_net: int
    result: Outcome | None


def view(state: State, seat: Seat | None) -> View:
    """The projection for ``seat`` (None: a spectator)."""
    over = state.phase == "over"
    players = tuple(
        PlayerView(
            cash=p.cash,
            share_count=len(p.shares),
            mortgaged_count=len(p.mortgaged),
            shares=p.shares if over or s == seat else None,
            mortgaged=p.mortgaged if over or s == seat else None,
        )
        for s, p in enumerate(state.players)
    )
    return View(
        viewer=seat,
        seats=state.seats,
        variant_boarding=state.variant_boarding,
        voyage=state.voyage,
        phase=state.phase,
        to_act=tuple(sorted(to_act(state))),
        harbour_master=state.harbour_master,
        players=players,
        supply=state.supply,
        market=state.market,
        high_bid=state.high_bid,
        high_bidder=state.high_bidder,
        dropped=state.dropped,
        boats=state.boats,
        rolls=state.rolls,
        harbour=state.harbour,
        shipyard=state.shipyard,
        pirates=state.pirates,
        small_pilot=state.small_pilot,
        big_pilot=state.big_pilot,
        insurance=state.insurance,
        pilot_turn=state.pilot_turn,
        plundered=state.plundered,
        office_net=state.office_net,
        result=state.result,
    )


def redact(event: ev.ManilaEvent, seat: Seat | None) -> ev.ManilaEvent | None:
    """Hide dealt hands and the goods of pledged/repaid shares from everyone but their owner."""
    if isinstance(event, ev.SharesDealt):
        hands = tuple(h if s == seat else None for s, h in enumerate(event.hands))
        return msgspec.structs.replace(event, hands=hands)
    if isinstance(event, ev.LoanTaken | ev.LoanRepaid) and event.seat != seat:
        return msgspec.structs.replace(event, good=None)
    return event
