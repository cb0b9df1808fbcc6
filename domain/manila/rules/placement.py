"""Phase 3, the placement rounds: every field an accomplice may take (S0 "Wohin mit den Komplizen?",
"Blinder Passagier")."""

from __future__ import annotations

from domain.manila import commands as cmd
from domain.manila import data
from domain.manila import events as ev
from domain.manila.rules.common import forced_loans, refuse
from domain.manila.state import State, boat_of, free_seat, is_stowaway, means

FIELDS: tuple[str, ...] = (*data.GOODS, *data.HARBOUR_FIELDS, *data.SHIPYARD_FIELDS, *data.OTHER_FIELDS)


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
    taken = {
        "pirate": state.pirates[1],
        "small_pilot": state.small_pilot,
        "big_pilot": state.big_pilot,
        "insurance": state.insurance,
    }
    costs = {"pirate": data.PIRATE_COST, "small_pilot": data.SMALL_PILOT_COST}
    costs |= {"big_pilot": data.BIG_PILOT_COST, "insurance": 0}
    if field not in taken or taken[field] is not None:
        return None
    return costs[field]


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
    player = state.players[seat]
    if is_stowaway(player):
        return (0, True) if field in data.GOODS else None
    if cost <= means(player):
        return cost, False
    cheapest = _cheapest_boat_seat(state)
    if field in data.GOODS and cheapest is not None and means(player) < cheapest == cost:
        return player.cash, False
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
    """Every field this seat may take now, then passing."""
    out: list[cmd.ManilaCommand] = [
        cmd.PlaceAccomplice(field=f) for f in FIELDS if terms(state, seat, f) is not None
    ]
    return [*out, cmd.PassPlacement()]
