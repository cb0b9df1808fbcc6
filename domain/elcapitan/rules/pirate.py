"""The pirate ship of Islas Canarias (expansion rules, "Sonderregeln für Islas Canarias").

Decisions: at most one pirate move per turn, the free move on arrival being that move (ambiguity 33);
the free move goes to any city but its own and Islas Canarias, distance unlimited (32); cards move the
pirate as they would move a ship (34): "eine oder mehrere eigene Segelkarten", any number, each leg from
where the previous one ended (any city in play), in any order; a card set is legal only when no card of
it is superfluous (no proper subset reaches the target), which keeps the offered sets few; a displaced ship
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


def minimal_moves(state: State, cards: tuple[str, ...]) -> dict[int, frozenset[str]]:
    """Per subset of ``cards`` (a bit mask over positions): the cities it is a minimal pirate move to.

    A set of cards moves the pirate to a city when some order of playing all of them, each leg from where
    the previous one ended (any city in play), ends there; it is minimal when no proper subset does. Built
    level by level; a subset is extended only while some city is still out of reach of it and of all its
    subsets (a superset of it could not be minimal for anything else), so the search stays small.
    """
    everywhere = frozenset(c.name for c in state.cities) - {state.pirate}
    legs: dict[tuple[str, str], frozenset[str]] = {}

    def leg(card: str, frm: str) -> frozenset[str]:
        if (card, frm) not in legs:
            legs[card, frm] = leg_targets(state, card, frm)
        return legs[card, frm]

    reach: dict[int, frozenset[str]] = {0: frozenset({state.pirate})}
    up: dict[int, frozenset[str]] = {0: frozenset()}  # cities reached by the subset or any subset of it
    found: dict[int, frozenset[str]] = {}
    alive = {0}
    for _ in cards:
        nxt: set[int] = set()
        for mask in alive:
            for i in range(len(cards)):
                bit = 1 << i
                if mask & bit or mask | bit in nxt:
                    continue
                full = mask | bit
                subs = [(full & ~(1 << j), cards[j]) for j in range(len(cards)) if full >> j & 1]
                if any(sub not in alive for sub, _ in subs):
                    continue  # a subset of it already reaches everywhere
                now = frozenset(t for sub, card in subs for x in reach[sub] for t in leg(card, x))
                below = frozenset().union(*(up[sub] for sub, _ in subs))
                reach[full], up[full] = now, below | now
                if now - below - {state.pirate}:
                    found[full] = now - below - {state.pirate}
                if everywhere - up[full]:
                    nxt.add(full)
        alive = nxt
    return found


def _check_cards(state: State, seat: int, command: MovePirate) -> None:
    """Any number of own cards (names sorted), together reaching ``to``, none of them superfluous."""
    left = list(state.players[seat].hand)
    for card in command.cards:
        if card not in left:
            raise rule("card_not_in_hand", f"card {card} is not in the hand")
        left.remove(card)
    if list(command.cards) != sorted(command.cards):
        raise rule("pirate_cards_unsorted", "the cards of a pirate move are named in sorted order")
    full = (1 << len(command.cards)) - 1
    reached = minimal_moves(state, command.cards).get(full, frozenset())
    if command.to in reached:
        return
    every = reach_with_all(state, command.cards)
    if command.to in every:
        raise rule("pirate_card_not_needed", "a pirate move plays no card it can do without")
    raise rule("unreachable", f"cards {', '.join(command.cards)} do not take the pirate to {command.to}")


def reach_with_all(state: State, cards: tuple[str, ...]) -> frozenset[str]:
    """Cities some order of playing every one of ``cards`` takes the pirate to (no pruning)."""
    ends = {(state.pirate, 0)}
    for _ in cards:
        ends = {
            (t, used | 1 << i)
            for x, used in ends
            for i, card in enumerate(cards)
            if not used >> i & 1
            for t in leg_targets(state, card, x)
        }
    return frozenset(x for x, _ in ends)


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
        if not state.turn.pirate_due or command.cards:
            raise rule("pirate_not_free", "the free move is owed only on arriving at Islas Canarias")
        if command.to == data.CANARIAS:
            raise rule("pirate_bad_city", "the free move takes the pirate to another city")
        return 0
    if state.turn.pirate_due:
        raise rule("pirate_move_owed", "the free move owed on arrival is this turn's pirate move")
    if command.cards:
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
        cards=command.cards,
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
    hand = tuple(sorted(state.players[seat].hand))
    card_sets: dict[str, set[tuple[str, ...]]] = {}
    for mask, reached in minimal_moves(state, hand).items():
        cards = tuple(card for i, card in enumerate(hand) if mask >> i & 1)
        for name in reached:
            card_sets.setdefault(name, set()).add(cards)
    for name in targets:
        spaces = range(len(CITY[name].harbours))
        if money >= data.PIRATE_STEP_COST * distance(state.pirate, name):
            out += [MovePirate(to=name, space=sp) for sp in spaces]
        for cards in sorted(card_sets.get(name, ()), key=lambda c: (len(c), c)):
            out += [MovePirate(to=name, space=sp, cards=cards) for sp in spaces]
    return out


__all__ = ["PIRATE", "check_move", "decide_move", "free_targets", "pirate_commands", "pirate_owed"]
