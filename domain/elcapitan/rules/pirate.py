"""The pirate ship of Islas Canarias (expansion rules, "Sonderregeln für Islas Canarias").

Decisions: the free move goes to any city but its own and Islas Canarias, distance unlimited (32); cards
move the pirate as they would move a ship (34): "eine oder mehrere eigene Segelkarten", each leg from where
the previous one ended (any city in play); a displaced ship goes to the cheapest empty space and builds at
its cost (35); the protection charge counts operating warehouses and fortresses of the other players, by
the current phase (36).

Rules 2 (issue 32; ``state.rules``, README "Rules versions"):

- A move with cards names them in the order they are played (``MovePirate.cards``); ``decide`` follows
  them leg by leg, in time linear in their number. ``legal_commands`` offers one move with cards per
  target and space: the fewest cards that reach it (:func:`card_routes`), never every set that would.
- "…muss im selben Zug das Piratenschiff, egal wo es steht, kostenlos in eine andere Stadt versetzen": the
  free move is owed on arrival also after a paid move this turn; "einmal" limits the paid move (by cards
  or money), once a turn, before or after the free one. The free move is owed once a turn.
- "Reicht ihr Geld nicht aus, zahlen sie den Geldbetrag, den sie besitzen": a player in debt pays nothing
  and never receives money from the collector.

Rules 4 (issue 43, finding 18): a move with cards plays exactly the cards ``legal_commands`` offers for
its target, the fewest that reach it (:func:`card_routes`). Rules 2 and 3 took any cards that reach it,
played leg by leg ("kann so viele Segelkarten einsetzen, wie er will"), while the offer named one choice
per target: ``decide`` accepted moves the game's list of legal moves never named (a fuzzer found 68), and
naming every choice grows exponentially with the hand (3,346 moves for 21 cards before issue 32). The
player still plays "eine oder mehrere eigene Segelkarten"; which ones, when several routes are as short,
the offer chooses.

Rules 1 (games started before): one pirate move a turn, the free move being that move (33); the cards of a
move are named sorted, and the set is legal when some order of playing them all reaches the target and no
card of it is superfluous (no proper subset reaches it); the collector took ``min(money, charge)``, so a
player in debt received money. ``decide`` keeps these for those games, with the card check made
polynomial (a set is minimal for a city exactly when the shortest card route to it uses all of its cards).
"""

from __future__ import annotations

from collections.abc import Sequence

from domain.elcapitan import data
from domain.elcapitan import events as ev
from domain.elcapitan.commands import ElCapitanCommand, MovePirate
from domain.elcapitan.rules.board import CITY, DESTINATION, INTERCONNECTION, distance, refuse
from domain.elcapitan.rules.sailing import check_turn
from domain.elcapitan.state import EMPTY, PIRATE, State, owner

_Node = tuple[str, tuple[int, ...]]
"""A state of :func:`card_routes`' search: the city reached, and the destination cards left per seals."""

EXACT_OLD_REFUSAL_CARDS = 8
"""Rules 1 only: up to this many cards, a refused non-minimal card set names the refusal the old engine
named (``pirate_card_not_needed`` when playing all of them reaches the target, else ``unreachable``), by a
search exponential in their number; beyond it, a set whose part reaches the target is ``not_needed``."""


def _has_free_space(state: State, name: str) -> bool:
    return EMPTY in state.cities[state.city_index(name)].harbours


def free_targets(state: State) -> tuple[str, ...]:
    """Cities the owed free move may take the pirate to."""
    return tuple(
        c.name for c in state.cities if c.name not in (state.pirate, data.CANARIAS) and EMPTY in c.harbours
    )


def pirate_owed(state: State) -> bool:
    """The active player's ship reached Islas Canarias and the free move is still to be made."""
    if state.rules == 1 and state.turn.pirate_moved:
        return False
    return state.turn.pirate_due and bool(free_targets(state))


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


def card_routes(state: State, cards: Sequence[str]) -> dict[str, tuple[str, ...]]:
    """For each city some of ``cards`` take the pirate to: a shortest such sequence, in playing order.

    Each card is played at most once, each leg starting where the previous one ended. Found by a
    breadth-first search whose states are (city, destination cards left per number of seals), not the sets
    of cards played, so it takes polynomial time whatever the hand:

    - A shortest route visits no city twice (the legs between two visits could be left out), so it plays
      no interconnection card twice: each joins one pair of cities.
    - A destination card played *to its city* is needed only on the first leg: played later, it could
      have been played first, from the pirate's city, leaving out the legs before it.
    - On every other leg a destination card sails as a sea route, up to its seals: only its number of
      seals matters, and giving each such leg the card with the fewest seals that reach is as good as any
      assignment (every card with more seals serves every leg that one with fewer serves).

    With at most 12 cities and 18 destination cards (six of 1, 2 and 3 seals), the search visits at most
    12 × 7³ states, in practice a few hundred.
    """
    pirate = state.pirate
    names = [c.name for c in state.cities]
    links: dict[tuple[str, str], str] = {}
    pools: dict[int, list[str]] = {}
    for card in sorted(cards):
        dest = DESTINATION.get(card)
        if dest is not None:
            pools.setdefault(dest.seals, []).append(card)
        else:
            a, b = INTERCONNECTION[card].cities
            links.setdefault((a, b), card)
            links.setdefault((b, a), card)
    classes = sorted(pools)
    full = tuple(len(pools[s]) for s in classes)
    # How each node was first reached: (node before, "link" | "sea" | "dest", a card or a class index).
    came: dict[_Node, tuple[_Node, str, str | int] | None] = {(pirate, full): None}
    first: dict[str, _Node] = {}
    frontier: list[_Node] = []

    def reach(node: _Node, before: _Node, how: str, what: str | int) -> None:
        if node in came:
            return
        came[node] = (before, how, what)
        frontier.append(node)
        first.setdefault(node[0], node)

    start: _Node = (pirate, full)
    layer = [start]
    while layer and len(first) < len(names) - 1:
        for node in layer:
            at, left = node
            if node == start:  # a destination card to its own city, from anywhere: first legs only
                for card in sorted({c for c in cards if c in DESTINATION}):
                    dest = DESTINATION[card]
                    if dest.city != pirate and state.city_index(dest.city) >= 0:
                        fewer = list(full)
                        fewer[classes.index(dest.seals)] -= 1
                        reach((dest.city, tuple(fewer)), start, "dest", card)
            for to in names:
                if to in (at, pirate):
                    continue
                link = links.get((at, to))
                if link is not None:
                    reach((to, left), node, "link", link)
                steps = distance(at, to)
                fit = next((i for i, s in enumerate(classes) if s >= steps and left[i] > 0), -1)
                if fit >= 0:
                    less = (*left[:fit], left[fit] - 1, *left[fit + 1 :])
                    reach((to, less), node, "sea", fit)
        layer, frontier = frontier, []
    return {name: _route(came, node, classes, pools) for name, node in first.items()}


def _route(
    came: dict[_Node, tuple[_Node, str, str | int] | None],
    node: _Node,
    classes: list[int],
    pools: dict[int, list[str]],
) -> tuple[str, ...]:
    """The cards of the route that first reached ``node``, in playing order, sea routes dealt cheapest first."""
    legs: list[tuple[str, str | int]] = []
    step = came[node]
    while step is not None:
        node, how, what = step
        legs.append((how, what))
        step = came[node]
    legs.reverse()
    used = {what for how, what in legs if how == "dest"}
    spare = {i: [c for c in pools[s] if c not in used] for i, s in enumerate(classes)}
    out: list[str] = []
    for how, what in legs:
        if how == "sea":
            assert isinstance(what, int)
            out.append(spare[what].pop(0))
        else:
            assert isinstance(what, str)
            out.append(what)
    return tuple(out)


def _take_from_hand(state: State, seat: int, cards: Sequence[str]) -> None:
    left = list(state.players[seat].hand)
    for card in cards:
        if card not in left:
            refuse("card_not_in_hand", f"card {card} is not in the hand")
        left.remove(card)


def _check_cards(state: State, seat: int, command: MovePirate) -> None:
    """Rules 2: own cards, played in the order named, each leg from where the previous one ended."""
    _take_from_hand(state, seat, command.cards)
    at = frozenset({state.pirate})
    for card in command.cards:
        at = frozenset(to for frm in at for to in leg_targets(state, card, frm))
    if command.to not in at:
        played = ", ".join(command.cards)
        refuse("unreachable", f"cards {played}, played in this order, do not take the pirate to {command.to}")


def _check_offered_cards(state: State, seat: int, command: MovePirate) -> None:
    """Rules 4: the cards are the route offered for the target, in its order."""
    _take_from_hand(state, seat, command.cards)
    offered = card_routes(state, state.players[seat].hand).get(command.to)
    if offered is None:
        refuse("unreachable", f"no cards of the hand take the pirate to {command.to}")
    if tuple(command.cards) != offered:
        refuse(
            "pirate_cards_not_offered",
            f"a pirate move by cards plays the fewest cards that take it there, as offered: {', '.join(offered)}",
        )


def _check_cards_v1(state: State, seat: int, command: MovePirate) -> None:
    """Rules 1: own cards (names sorted), together reaching ``to`` in some order, none superfluous."""
    _take_from_hand(state, seat, command.cards)
    if list(command.cards) != sorted(command.cards):
        refuse("pirate_cards_unsorted", "the cards of a pirate move are named in sorted order")
    route = card_routes(state, command.cards).get(command.to)
    if route is not None and len(route) == len(command.cards):
        return  # the shortest route plays every card: together they reach, and no part of them does
    if route is not None and (
        len(command.cards) > EXACT_OLD_REFUSAL_CARDS or command.to in reach_with_all(state, command.cards)
    ):
        refuse("pirate_card_not_needed", "a pirate move plays no card it can do without")
    refuse("unreachable", f"cards {', '.join(command.cards)} do not take the pirate to {command.to}")


def reach_with_all(state: State, cards: tuple[str, ...]) -> frozenset[str]:
    """Cities some order of playing every one of ``cards`` takes the pirate to (exponential: rules 1's
    refusals of at most ``EXACT_OLD_REFUSAL_CARDS`` cards only)."""
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
        refuse("no_pirate", "the pirate ship sails only with Islas Canarias")
    if state.rules == 1 and state.turn.pirate_moved:
        refuse("pirate_already_moved", "the pirate may be moved once per turn")
    if state.city_index(command.to) < 0 or command.to == state.pirate:
        refuse("pirate_bad_city", "the pirate moves to another city in play, never within one city")
    if not _has_free_space(state, command.to):
        refuse("pirate_no_free_space", f"{command.to} has no free harbour space")
    if not 0 <= command.space < len(CITY[command.to].harbours):
        refuse("pirate_bad_space", f"{command.to} has no harbour space {command.space}")
    if command.free:
        if not state.turn.pirate_due or command.cards:
            refuse("pirate_not_free", "the free move is owed only on arriving at Islas Canarias")
        if command.to == data.CANARIAS:
            refuse("pirate_bad_city", "the free move takes the pirate to another city")
        return 0
    if state.rules == 1 and state.turn.pirate_due:
        refuse("pirate_move_owed", "the free move owed on arrival is this turn's pirate move")
    if state.turn.pirate_moved:
        refuse("pirate_already_moved", "the pirate may be moved once per turn by cards or money")
    if command.cards:
        checks = {1: _check_cards_v1, 2: _check_cards, 3: _check_cards}
        checks.get(state.rules, _check_offered_cards)(state, seat, command)
        return 0
    cost = data.PIRATE_STEP_COST * distance(state.pirate, command.to)
    if state.players[seat].money < cost:
        refuse("cannot_afford", f"moving the pirate there costs {cost} Florin")
    return cost


def protection(state: State, seat: int, city_name: str) -> tuple[int, ...]:
    """What each other owner pays per operating warehouse and fortress there, at most his cash.

    Rules 2: "Reicht ihr Geld nicht aus, zahlen sie den Geldbetrag, den sie besitzen": a player in debt
    pays nothing (rules 1 paid him his debt's worth).
    """
    city = state.cities[state.city_index(city_name)]
    count = [0] * state.seats
    for colour in city.sites:
        if colour != EMPTY:
            count[owner(colour, state.seats)] += 1
    for holder in city.fortresses:
        if holder != EMPTY:
            count[holder] += 1
    rate = data.PROTECTION_CHARGE[state.phase - 1]
    floor = None if state.rules == 1 else 0
    out = []
    for s in range(state.seats):
        due = 0 if s == seat else min(state.players[s].money, rate * count[s])
        out.append(due if floor is None else max(floor, due))
    return tuple(out)


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
    """The pirate moves open to ``seat`` now: every free one, and per target and space the paid one and one
    with cards (the fewest that reach it): at most 3 × 11 × 3 commands.

    Rules 1 offers its card move as the route's cards sorted: a shortest route is a minimal set.
    """
    if not state.pirate or state.stage != "turn" or seat != state.current:
        return []
    out: list[ElCapitanCommand] = []
    if pirate_owed(state):
        for name in free_targets(state):
            for space in range(len(CITY[name].harbours)):
                out.append(MovePirate(to=name, space=space, free=True))
        if state.rules == 1:
            return out
    if state.turn.pirate_moved or (state.rules == 1 and state.turn.pirate_due):
        return out
    targets = [c.name for c in state.cities if c.name != state.pirate and EMPTY in c.harbours]
    money = state.players[seat].money
    routes = card_routes(state, state.players[seat].hand)
    for name in targets:
        spaces = range(len(CITY[name].harbours))
        if money >= data.PIRATE_STEP_COST * distance(state.pirate, name):
            out += [MovePirate(to=name, space=sp) for sp in spaces]
        route = routes.get(name)
        if route is not None:
            cards = tuple(sorted(route)) if state.rules == 1 else route
            out += [MovePirate(to=name, space=sp, cards=cards) for sp in spaces]
    return out


__all__ = [
    "PIRATE",
    "card_routes",
    "check_move",
    "decide_move",
    "free_targets",
    "pirate_commands",
    "pirate_owed",
]
