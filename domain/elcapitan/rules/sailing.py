"""Buying and playing sailing cards (rulebook, "Die Segelkarten", "Kauf von Segelkarten", "Segeln";
expansions, "Segeln außerhalb des Spielplans").
"""

from __future__ import annotations

from domain.elcapitan import events as ev
from domain.elcapitan.rules.board import (
    DESTINATION,
    INTERCONNECTION,
    arrival_space,
    card_cost,
    distance,
    refuse,
)
from domain.elcapitan.state import State


def check_turn(state: State, seat: int) -> None:
    """Only the active player acts during a turn."""
    if state.stage == "over":
        refuse("game_over", "the game is over")
    if state.stage != "turn":
        refuse("not_in_turn", "no turn is being played now (loans or start-player choice pending)")
    if seat != state.current:
        refuse("not_your_turn", f"it is seat {state.current}'s turn")


def check_buy(state: State, seat: int, card: str) -> int:
    """Any number of displayed cards may be bought before and after building; returns the price."""
    check_turn(state, seat)
    if card not in state.destinations.display and card not in state.interconnections.display:
        refuse("card_not_displayed", f"card {card} is not on display")
    cost = card_cost(card)
    if state.players[seat].money < cost:
        refuse("cannot_afford", f"card {card} costs {cost} Florin")
    return cost


def decide_buy(state: State, seat: int, card: str) -> list[ev.ElCapitanEvent]:
    """Buy a displayed card: it goes to the hand and can be used now or later."""
    cost = check_buy(state, seat, card)
    return [ev.CardBought(seat=seat, card=card, cost=cost)]


def sail_targets(state: State, seat: int, card: str) -> tuple[str, ...]:
    """Cities ``card`` takes this seat's ship to from where it is now."""
    ship = state.players[seat].ship
    at_city = ship not in ("", "bank")
    dest = DESTINATION.get(card)
    if dest is not None:
        # Ambiguity 6: the ship enters the board, and leaves the bank, only this way.
        # As a destination card: from anywhere, also from the bank or at the start; never to the city the
        # ship is in, which would let a ship on the dearer harbour space hop to the cheaper one.
        targets = [dest.city] if dest.city != ship else []
        # Ambiguity 27: interconnection cards never start or end off the board (their cities are on it).
        if at_city:  # as a sea-route card: up to ``seals`` steps from a city; the only way off the board
            targets += [
                c.name
                for c in state.cities
                if c.name not in (ship, dest.city) and distance(ship, c.name) <= dest.seals
            ]
        return tuple(targets)
    a, b = INTERCONNECTION[card].cities
    if ship == a:
        return (b,)
    if ship == b:
        return (a,)
    return ()


def check_sail(state: State, seat: int, card: str, to: str) -> None:
    """Sailing comes before the action, with a card from the hand that reaches ``to``."""
    check_turn(state, seat)
    if state.turn.acted:
        refuse("sail_after_action", "sailing must happen before building")
    if card not in state.players[seat].hand:
        refuse("card_not_in_hand", f"card {card} is not in seat {seat}'s hand")
    if state.city_index(to) < 0:
        refuse("no_such_city", f"{to!r} is not a city in play")
    if to not in sail_targets(state, seat, card):
        where = state.players[seat].ship or "off the board"
        refuse("unreachable", f"card {card} does not take a ship from {where} to {to}")


def decide_sail(state: State, seat: int, card: str, to: str) -> list[ev.ElCapitanEvent]:
    """Sail: the ship takes the cheapest free harbour space, or passes through a full city."""
    check_sail(state, seat, card, to)
    return [ev.ShipSailed(seat=seat, card=card, to=to, harbour=arrival_space(state, seat, to))]
