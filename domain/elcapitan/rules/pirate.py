"""The pirate ship of Islas Canarias (expansion rules, "Sonderregeln für Islas Canarias").

Decisions: at most one pirate move per turn, the free move on arrival being that move (ambiguity 33);
the free move goes to any city but its own and Islas Canarias, distance unlimited (32); cards move the
pirate as they would move a ship (34): one card, or two when neither alone reaches the target (the first
card's leg may end in any city in play; moves of three or more cards are not offered); a displaced ship
goes to the cheapest empty space and builds at its cost (35); the protection charge counts operating
warehouses and fortresses of the other players, by the current phase (36).
"""

from __future__ import annotations

from domain.elcapitan import data
from domain.elcapitan import events as ev
from domain.elcapitan.commands import ElCapitanCommand, MovePirate
from domain.elcapitan.rules.board import CITY, DESTINATION, INTERCONNECTION, distance, rule
from domain.elcapitan.rules.sailing import check_turn
from domain.elcapitan.state import EMPTY, PIRATE, State, owner


def _has_free_space(state: State, name: str) -> bool:
    return EMPTY in state.cities[state.city_index(name)].harbours


def free_targets(state: State) -> tuple[str, ...]:
    """Cities the owed free move may take the pirate to."""
    return tuple(
        c.name for c in state.cities if c.name not in (state.pirate, data.CANARIAS) and EMPTY in c.harbours
    )


def pirate_owed(state: State) -> bool:
    """The active player's ship reached Islas Canarias and the free move is still to be made."""
    return state.turn.pirate_due and not state.turn.pirate_moved and bool(free_targets(state))


def leg_targets(state: State, card: str, frm: str) -> frozenset[str]:
    """Cities in play (other than ``frm``) that ``card`` takes the pirate to from ``frm``, as a ship."""
    dest = DESTINATION.get(card)
    if dest is not None:
        near = (c.name for c in state.cities if distance(frm, c.name) <= dest.seals)
        return frozenset((dest.city, *near)) - {frm}
    a, b = INTERCONNECTION[card].cities
    return frozenset({b} if frm == a else {a} if frm == b else ())


def card_reaches(state: State, card: str, to: str) -> bool:
    """Whether ``card`` alone moves the pirate from its city to ``to``."""
    return to in leg_targets(state, card, state.pirate)


def _check_cards(state: State, seat: int, command: MovePirate) -> None:
    """One card, or two when neither alone reaches (the first card's leg ends in any city in play)."""
    hand = state.players[seat].hand
    for card in (command.card, command.second):
        if card and card not in hand:
            raise rule("card_not_in_hand", f"card {card} is not in the hand")
    if not command.second:
        if not card_reaches(state, command.card, command.to):
            raise rule("unreachable", f"card {command.card} does not take the pirate to {command.to}")
        return
    if command.second == command.card or not command.card:
        raise rule("pirate_bad_cards", "a two-card pirate move plays two different cards")
    if card_reaches(state, command.card, command.to) or card_reaches(state, command.second, command.to):
        raise rule("pirate_card_not_needed", "a second card is played only when one card cannot reach")
    legs = leg_targets(state, command.card, state.pirate)
    if not any(command.to in leg_targets(state, command.second, x) for x in legs):
        raise rule("unreachable", f"cards {command.card}, {command.second} do not reach {command.to}")


def check_move(state: State, seat: int, command: MovePirate) -> int:
    """A pirate move; returns its cost in Florin (2 a step when paid, else 0)."""
    check_turn(state, seat)
    if not state.pirate:
        raise rule("no_pirate", "the pirate ship sails only with Islas Canarias")
    if state.turn.pirate_moved:
        raise rule("pirate_already_moved", "the pirate may be moved once per turn")
    if state.city_index(command.to) < 0 or command.to == state.pirate:
        raise rule("pirate_bad_city", "the pirate moves to another city in play, never within one city")
    if not _has_free_space(state, command.to):
        raise rule("pirate_no_free_space", f"{command.to} has no free harbour space")
    if not 0 <= command.space < len(CITY[command.to].harbours):
        raise rule("pirate_bad_space", f"{command.to} has no harbour space {command.space}")
    if command.free:
        if not state.turn.pirate_due or command.card or command.second:
            raise rule("pirate_not_free", "the free move is owed only on arriving at Islas Canarias")
        if command.to == data.CANARIAS:
            raise rule("pirate_bad_city", "the free move takes the pirate to another city")
        return 0
    if state.turn.pirate_due:
        raise rule("pirate_move_owed", "the free move owed on arrival is this turn's pirate move")
    if command.card or command.second:
        _check_cards(state, seat, command)
        return 0
    cost = data.PIRATE_STEP_COST * distance(state.pirate, command.to)
    if state.players[seat].money < cost:
        raise rule("cannot_afford", f"moving the pirate there costs {cost} Florin")
    return cost


def protection(state: State, seat: int, city_name: str) -> tuple[int, ...]:
    """What each other owner pays per operating warehouse and fortress there, at most his cash."""
    city = state.cities[state.city_index(city_name)]
    count = [0] * state.seats
    for colour in city.sites:
        if colour != EMPTY:
            count[owner(colour, state.seats)] += 1
    for holder in city.fortresses:
        if holder != EMPTY:
            count[holder] += 1
    rate = data.PROTECTION_CHARGE[state.phase - 1]
    return tuple(0 if s == seat else min(state.players[s].money, rate * count[s]) for s in range(state.seats))


def decide_move(state: State, seat: int, command: MovePirate) -> list[ev.ElCapitanEvent]:
    """Move the pirate; a ship on the chosen space goes to the empty one; the free move collects."""
    cost = check_move(state, seat, command)
    city = state.cities[state.city_index(command.to)]
    displaced = city.harbours[command.space]
    displaced_to = EMPTY
    if displaced != EMPTY:
        displaced_to = next(i for i, h in enumerate(city.harbours) if h == EMPTY)
    moved = ev.PirateMoved(
        seat=seat,
        to=command.to,
        space=command.space,
        cost=cost,
        card=command.card,
        second=command.second,
        free=command.free,
        displaced=displaced,
        displaced_to=displaced_to,
    )
    events: list[ev.ElCapitanEvent] = [moved]
    if command.free:
        payments = protection(state, seat, command.to)
        events.append(ev.ProtectionCollected(seat=seat, city=command.to, payments=payments))
    return events


def pirate_commands(state: State, seat: int) -> list[ElCapitanCommand]:
    """Every pirate move open to ``seat`` now."""
    if not state.pirate or state.stage != "turn" or seat != state.current or state.turn.pirate_moved:
        return []
    out: list[ElCapitanCommand] = []
    if state.turn.pirate_due:
        for name in free_targets(state):
            for space in range(len(CITY[name].harbours)):
                out.append(MovePirate(to=name, space=space, free=True))
        return out
    targets = [c.name for c in state.cities if c.name != state.pirate and EMPTY in c.harbours]
    money = state.players[seat].money
    hand = tuple(dict.fromkeys(state.players[seat].hand))
    single = {card: leg_targets(state, card, state.pirate) for card in hand}
    pairs = _pair_targets(state, hand, single)
    for name in targets:
        spaces = range(len(CITY[name].harbours))
        if money >= data.PIRATE_STEP_COST * distance(state.pirate, name):
            out += [MovePirate(to=name, space=sp) for sp in spaces]
        for card in hand:
            if name in single[card]:
                out += [MovePirate(to=name, space=sp, card=card) for sp in spaces]
        for first, second in pairs.get(name, ()):
            out += [MovePirate(to=name, space=sp, card=first, second=second) for sp in spaces]
    return out


def _pair_targets(
    state: State, hand: tuple[str, ...], single: dict[str, frozenset[str]]
) -> dict[str, list[tuple[str, str]]]:
    """Per target city: the ordered card pairs that reach it where neither card alone does."""
    legs: dict[tuple[str, str], frozenset[str]] = {}
    found: dict[str, list[tuple[str, str]]] = {}
    for first in hand:
        for second in hand:
            if first == second:
                continue
            reach: set[str] = set()
            for x in single[first]:
                key = (second, x)
                if key not in legs:
                    legs[key] = leg_targets(state, second, x)
                reach |= legs[key]
            for name in reach - single[first] - single[second] - {state.pirate}:
                found.setdefault(name, []).append((first, second))
    return found


__all__ = ["PIRATE", "check_move", "decide_move", "free_targets", "pirate_commands", "pirate_owed"]
