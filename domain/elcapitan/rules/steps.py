"""The steps open to the active player in a turn: buying, sailing, the action and the loan.

Its own module so that ``flow`` (the phase-end safeguard asks whether anybody could still act) and the
rules package (``legal_commands``) both import it, with no circle through the package.
"""

from __future__ import annotations

from typing import Final

from msgspec.structs import replace

from domain.elcapitan import commands as cmd
from domain.elcapitan import data
from domain.elcapitan.rules import building, pirate, sailing
from domain.elcapitan.rules.board import (
    CITY,
    DESTINATION,
    INTERCONNECTION,
    arrival_space,
    card_cost,
    loans_available,
)
from domain.elcapitan.state import EMPTY, CityState, State
from domain.engine import Seat

COST: Final[dict[str, int]] = {card: card_cost(card) for card in (*DESTINATION, *INTERCONNECTION)}
"""Every sailing card's price, looked up once (the display is priced at every listing)."""


def turn_steps(state: State, seat: Seat) -> list[cmd.ElCapitanCommand]:
    """Buying, sailing, the action and the loan open to the active player (not the pirate moves).

    Also the phase-end safeguard's test whether a player could do anything at all (``flow.deadlocked``).
    """
    p = state.players[seat]
    out: list[cmd.ElCapitanCommand] = [
        cmd.BuyCard(card=card)
        for card in (*state.destinations.display, *state.interconnections.display)
        if p.money >= COST[card]
    ]
    if not state.turn.acted:
        for card in dict.fromkeys(p.hand):
            out += [cmd.Sail(card=card, to=to) for to in sailing.sail_targets(state, seat, card)]
        actions = building.action_commands(state, seat)
        out += actions
        out += _loans(state, seat, actions)
    return out


def _loans(state: State, seat: Seat, actions: list[cmd.ElCapitanCommand]) -> list[cmd.ElCapitanCommand]:
    """The loans ``building.check_loan`` accepts; the first round, an owed pirate move and (after buying
    cards) an action open here (``actions``, just listed), which it refuses for every loan, are tested once
    before it (cheaper than a refusal per loan kind)."""
    if state.phase == 1 and state.round == 1:
        return []
    if state.turn.bought and actions:
        return []
    owed = pirate.pirate_owed(state)
    if owed:
        return []
    return [
        cmd.TakeLoan(amount=kind.amount)
        for kind in data.LOANS
        if loans_available(state, kind.amount) > 0
        and building.accepts(building.check_loan, state, seat, kind.amount, owed)
    ]


def _reachable(state: State, seat: Seat) -> set[str]:
    """Cities the ship can end its sailing in this turn with the cards in hand (no purchase).

    The pirate sails like a ship (ambiguity 34), so ``pirate.card_routes`` from the ship's city gives
    every city a sequence of the hand's cards reaches, in polynomial time. From the bank or off the board
    only a destination card to its city starts a voyage (ambiguity 6). The ship's own city counts again
    when sailing away and back would anchor it on a cheaper space (ambiguity 21).
    """
    p = state.players[seat]
    if p.ship in ("", "bank"):
        out: set[str] = set()
        for card in dict.fromkeys(c for c in p.hand if c in DESTINATION):
            city = DESTINATION[card].city
            if state.city_index(city) >= 0:
                rest = list(p.hand)
                rest.remove(card)
                out |= {city, *pirate.card_routes(replace(state, pirate=city), rest)}
        return out
    routes = pirate.card_routes(replace(state, pirate=p.ship), p.hand)
    out = set(routes)
    if arrival_space(state, seat, p.ship) != p.harbour:
        for city, route in routes.items():
            rest = list(p.hand)
            for card in route:
                rest.remove(card)
            if p.ship in pirate.card_routes(replace(state, pirate=city), rest):
                out.add(p.ship)
                break
    return out


def action_within_reach(state: State, seat: Seat) -> bool:
    """Whether a build, re-opening or fortress is open in some city the ship can sail to this turn.

    Rules 3: „Im weiteren Spielverlauf ist das Segeln freiwillig.“ Sailing obliges only as the way to the
    turn's action („Wer an der Reihe ist, kann zuerst segeln und muss danach eine der drei folgenden
    Aktionen ausführen“); sailing costs nothing but cards, so the action open there is the one the
    ship would find on the harbour space it anchors on.
    """
    p = state.players[seat]
    if not any(_might_act(state, seat, city) for city in state.cities):
        return False  # the common case of a stuck player: no route search
    for city in _reachable(state, seat):
        space = arrival_space(state, seat, city)
        if space == EMPTY:
            continue  # a full city is passed through: no action there
        players = (*state.players[:seat], replace(p, ship=city, harbour=space), *state.players[seat + 1 :])
        if building.action_commands(replace(state, players=players), seat):
            return True
    return False


def _might_act(state: State, seat: Seat, city: CityState) -> bool:
    """A necessary condition of an action in ``city`` (``building``'s validators refuse it otherwise): a
    shut-down warehouse of the player's there, or a warehouse or fortress in supply and the money for
    the cheapest harbour space or fortress site."""
    p = state.players[seat]
    if any(colour in city.closed for colour in ((seat, seat + 2) if state.seats == 2 else (seat,))):
        return True
    printed = CITY[city.name]
    if (p.warehouses > 0 or p.neutral > 0) and p.money >= min(printed.harbours):
        return True
    return p.fortresses > 0 and p.money >= min(printed.fortresses)
