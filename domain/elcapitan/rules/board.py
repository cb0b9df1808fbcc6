"""The board (rulebook, "Der Spielplan"): cities in play, grid distances, cards, colours, harbours.

Distances are grid steps |Δrow| + |Δcol| on the 3×4 grid whose left column holds the expansion tiles;
squares of tiles not in play stay passable (elcapitan.md ambiguity 26).
"""

from __future__ import annotations

from typing import Final, NoReturn

from domain import engine
from domain.elcapitan import data
from domain.elcapitan.data import CityData, DestinationCard, InterconnectionCard
from domain.elcapitan.state import EMPTY, CityState, State

CITY: Final[dict[str, CityData]] = data.CITY_BY_NAME
city_names = data.city_names
DESTINATION: Final[dict[str, DestinationCard]] = {c.id: c for c in data.DESTINATION_CARDS}
INTERCONNECTION: Final[dict[str, InterconnectionCard]] = {c.id: c for c in data.INTERCONNECTION_CARDS}


def card_cost(card: str) -> int:
    """The printed price of a sailing card."""
    found = DESTINATION.get(card)
    return found.cost if found is not None else INTERCONNECTION[card].cost


def distance(a: str, b: str) -> int:
    """Seals needed from city ``a`` to city ``b`` (orthogonal steps, turns allowed)."""
    ca, cb = CITY[a], CITY[b]
    return abs(ca.row - cb.row) + abs(ca.col - cb.col)


def is_main(colour: int, seats: int) -> bool:
    """Whether ``colour`` is a player's main colour."""
    return colour < seats


def colour_of(seat: int, seats: int, neutral: bool) -> int:
    """The colour a seat builds with."""
    return seat + 2 if neutral and seats == 2 else seat


def refuse(code: str, message: str) -> NoReturn:
    """Raise the refusal ``elcapitan.<code>`` (``engine.refuse``, shared by the three games)."""
    engine.refuse("elcapitan", code, message)


def city_of(state: State, name: str) -> tuple[int, CityState]:
    """Index and state of a city in play, or a refusal naming it."""
    index = state.city_index(name)
    if index < 0:
        refuse("no_such_city", f"{name!r} is not a city in play")
    return index, state.cities[index]


def cheapest_free_harbour(city: CityState) -> int:
    """The first (cheapest) empty harbour space, or EMPTY when every space holds a ship or the pirate."""
    for space, holder in enumerate(city.harbours):
        if holder == EMPTY:
            return space
    return EMPTY


def arrival_space(state: State, seat: int, to: str) -> int:
    """Where a ship sailing to ``to`` anchors: its own space is left first (ambiguity 21)."""
    city = state.cities[state.city_index(to)]
    for space, holder in enumerate(city.harbours):
        if holder in (EMPTY, seat):
            return space
    return EMPTY


def main_cities_held(state: State, seat: int) -> int:
    """Cities where ``seat`` has an operating warehouse of its main colour (proliferation)."""
    return sum(1 for city in state.cities if seat in city.sites)


def supply_empty(state: State, seat: int) -> bool:
    """Whether the player has built every warehouse and fortress that stood in front of him."""
    p = state.players[seat]
    return p.warehouses == 0 and p.neutral == 0 and p.fortresses == 0


LOAN_CARDS: Final[dict[int, int]] = {kind.amount: kind.cards for kind in data.LOANS}
"""How many loan cards of each amount the bank holds at the start."""


def loans_available(state: State, amount: int) -> int:
    """Loan cards of ``amount`` left on their bank space (counted by loops: every listing asks it for each
    amount, twice, issue 45)."""
    out = 0
    for p in state.players:
        for loan in p.loans:
            if loan.amount == amount:
                out += 1
    return LOAN_CARDS[amount] - out


def repayment(amount: int, extended: bool) -> int:
    """What a loan card shows as its repayment amount."""
    kind = next(k for k in data.LOANS if k.amount == amount)
    return kind.repay_extended if extended else kind.repay


def turn_order(state: State) -> tuple[int, ...]:
    """Seats in turn order, starting with the phase's start player."""
    return state.turn_order()
