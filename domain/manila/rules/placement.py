"""Phase 3, the placement rounds: every field an accomplice may take (S0 "Wohin mit den Komplizen?",
"Blinder Passagier")."""

from __future__ import annotations

from collections.abc import Callable

from domain.manila import commands as cmd
from domain.manila import data
from domain.manila import events as ev
from domain.manila.rules.common import forced_loans, refuse
from domain.manila.state import Player, State, boat_of, free_seat, is_stowaway, means

FIELDS: tuple[str, ...] = (*data.GOODS, *data.HARBOUR_FIELDS, *data.SHIPYARD_FIELDS, *data.OTHER_FIELDS)


_OTHER_COSTS: dict[str, int] = {
    "pirate": data.PIRATE_COST,
    "small_pilot": data.SMALL_PILOT_COST,
    "big_pilot": data.BIG_PILOT_COST,
    "insurance": 0,
}
"""The fields off the boats, harbour and shipyard, and their prices (built once: this runs per field per
listing, the hot spot of Manila's ``legal_commands``)."""


def _other_taken(state: State, field: str) -> bool:
    """Whether the pirate's, a pilot's or the insurance field is occupied."""
    if field == "pirate":
        return state.pirates[1] is not None
    if field == "small_pilot":
        return state.small_pilot is not None
    if field == "big_pilot":
        return state.big_pilot is not None
    return state.insurance is not None


def field_cost(state: State, field: str) -> int | None:
    """What a free field costs now, or None when it is taken, full or not on the board this voyage."""
    if field in data.GOODS:
        boat = boat_of(state, field)
        if boat is None or boat.berth:  # no placing on a boat already in the harbour (S0)
            return None
        index = free_seat(boat)
        return None if index is None else data.SEAT_COSTS[field][index]
    if field in data.HARBOUR_FIELDS:
        index = data.HARBOUR_FIELDS.index(field)
        return data.HARBOUR_COSTS[index] if state.harbour[index] is None else None
    if field in data.SHIPYARD_FIELDS:
        index = data.SHIPYARD_FIELDS.index(field)
        return data.SHIPYARD_COSTS[index] if state.shipyard[index] is None else None
    if field not in _OTHER_COSTS or _other_taken(state, field):
        return None
    return _OTHER_COSTS[field]


def _cheapest_boat_seat(state: State) -> int | None:
    costs = [field_cost(state, g) for g in data.GOODS]
    known = [c for c in costs if c is not None]
    return min(known) if known else None


def terms(state: State, seat: int, field: str) -> tuple[int, bool] | None:
    """(pesos paid, stowaway) for placing on ``field``, or None when this seat may not place there.

    A stowaway (no cash, no free share) places free, on boats only. A player who cannot raise even the
    cheapest free boat seat may take such a seat by paying all his cash (S0 p. 8). Project decision
    (README "cannot afford"): "such a seat" is a seat at the cheapest price among all free boat seats.
    """
    cost = field_cost(state, field)
    if cost is None:
        return None
    return _terms_at(_purse(state.players[seat]), field, cost, lambda: _cheapest_boat_seat(state))


def _purse(player: Player) -> tuple[int, int, bool]:
    """(cash, means, stowaway): what placing asks of a player, worked out once for a whole listing."""
    return player.cash, means(player), is_stowaway(player)


def _terms_at(
    purse: tuple[int, int, bool], field: str, cost: int, cheapest_seat: Callable[[], int | None]
) -> tuple[int, bool] | None:
    """:func:`terms` for a free field of price ``cost``; ``cheapest_seat`` is asked only when needed."""
    cash, most, stowaway = purse
    if stowaway:
        return (0, True) if field in data.GOODS else None
    if cost <= most:
        return cost, False
    cheapest = cheapest_seat()
    if field in data.GOODS and cheapest is not None and most < cheapest == cost:
        return cash, False
    return None


def decide_place(state: State, seat: int, command: cmd.PlaceAccomplice) -> list[ev.ManilaEvent]:
    """Take a free field and pay its price to the office (insurance: receive 10 instead)."""
    if state.phase != "place":
        raise refuse("wrong_phase", "accomplices are placed only in placement rounds")
    if command.field not in FIELDS:
        raise refuse("unknown_field", f"no field called {command.field!r}")
    deal = terms(state, seat, command.field)
    if deal is None:
        raise refuse("field_unavailable", f"{command.field} is taken, full, in port or not affordable")
    paid, stowaway = deal
    index = None
    if command.field in data.GOODS:
        boat = boat_of(state, command.field)
        index = free_seat(boat) if boat is not None else None
    received = data.INSURANCE_INCOME if command.field == "insurance" else 0
    placed = ev.AccomplicePlaced(
        seat=seat, field=command.field, paid=paid, received=received, seat_index=index, stowaway=stowaway
    )
    loans: list[ev.ManilaEvent] = [*forced_loans(state, seat, paid)]
    return [*loans, placed]


def decide_pass(state: State, seat: int, command: cmd.PassPlacement) -> list[ev.ManilaEvent]:
    """Passing forfeits this accomplice for the rest of the voyage (S0)."""
    if state.phase != "place":
        raise refuse("wrong_phase", "one passes only in a placement round")
    return [ev.PlacementPassed(seat=seat)]


def legal(state: State, seat: int) -> list[cmd.ManilaCommand]:
    """Every field this seat may take now, then passing: :func:`terms` for each field, with every
    field's price and the cheapest boat seat worked out once for the whole list."""
    costs = [(f, field_cost(state, f)) for f in FIELDS]
    known = [c for f, c in costs if c is not None and f in data.GOODS]
    cheapest = min(known) if known else None
    purse = _purse(state.players[seat])
    out: list[cmd.ManilaCommand] = [
        cmd.PlaceAccomplice(field=f)
        for f, cost in costs
        if cost is not None and _terms_at(purse, f, cost, lambda: cheapest) is not None
    ]
    return [*out, cmd.PassPlacement()]
