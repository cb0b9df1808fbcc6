"""Pirate moves with cards (issue 32): the polynomial search against brute force, and rules 1 unchanged.

``card_routes`` finds, per city, a shortest sequence of hand cards that takes the pirate there, by a
search over (city, destination cards left per number of seals) instead of over sets of cards. Checked here
against every ordered choice of cards of small hands. Rules 1 (games started before issue 32) accepted a
sorted card set when it was minimal; its check now asks ``card_routes`` too, and is compared with the
engine's old search, copied below as the oracle.

The two checks over every choice of cards (rules 1 and rules 4) are the costly ones: in ``make test`` each
runs a few hands per expansion set (every set at least so), with ``HARBORMASTER_DEEP_PROPERTIES=1``
(``make chaos``) the full 40 and 60 hands (``tests/support/deep.py``).
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from msgspec.structs import replace

from domain.elcapitan import GAME, data
from domain.elcapitan.commands import MovePirate
from domain.elcapitan.rules.pirate import card_routes, leg_targets
from domain.elcapitan.state import State
from domain.engine import RuleViolation, rng_for
from tests.support.deep import examples

from .helpers import hand, pirate_at, start

CARDS = [c.id for c in data.DESTINATION_CARDS] + [c.id for c in data.INTERCONNECTION_CARDS]
EXPANSIONS = [("canarias",), ("porto", "canarias"), ("porto", "lisboa", "canarias")]


def ends(state: State, cards: tuple[str, ...]) -> frozenset[str]:
    """Where playing ``cards`` in this order can take the pirate."""
    at = frozenset({state.pirate})
    for card in cards:
        at = frozenset(t for x in at for t in leg_targets(state, card, x))
    return at


def brute_shortest(state: State, cards: tuple[str, ...]) -> dict[str, int]:
    """Per city: the fewest of ``cards`` (each at most once, in some order) that take the pirate there."""
    best: dict[str, int] = {}
    for k in range(1, len(cards) + 1):
        for order in itertools.permutations(cards, k):
            for city in ends(state, order):
                best.setdefault(city, k)
    best.pop(state.pirate, None)
    return best


def old_minimal_moves(state: State, cards: tuple[str, ...]) -> dict[int, frozenset[str]]:
    """The engine's search before issue 32 (``rules/pirate.minimal_moves`` at commit e1a3b8c), verbatim."""
    everywhere = frozenset(c.name for c in state.cities) - {state.pirate}
    reach: dict[int, frozenset[str]] = {0: frozenset({state.pirate})}
    up: dict[int, frozenset[str]] = {0: frozenset()}
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
                    continue
                now = frozenset(
                    t for sub, card in subs for x in reach[sub] for t in leg_targets(state, card, x)
                )
                below = frozenset().union(*(up[sub] for sub, _ in subs))
                reach[full], up[full] = now, below | now
                if now - below - {state.pirate}:
                    found[full] = now - below - {state.pirate}
                if everywhere - up[full]:
                    nxt.add(full)
        alive = nxt
    return found


def old_reach_with_all(state: State, cards: tuple[str, ...]) -> frozenset[str]:
    ends_ = {(state.pirate, 0)}
    for _ in cards:
        ends_ = {
            (t, used | 1 << i)
            for x, used in ends_
            for i, card in enumerate(cards)
            if not used >> i & 1
            for t in leg_targets(state, card, x)
        }
    return frozenset(x for x, _ in ends_)


def old_verdict(state: State, cards: tuple[str, ...], to: str) -> str:
    """What the old engine said to a sorted card set moving the pirate to ``to``."""
    if to in old_minimal_moves(state, cards).get((1 << len(cards)) - 1, frozenset()):
        return "ok"
    return (
        "elcapitan.pirate_card_not_needed"
        if to in old_reach_with_all(state, cards)
        else "elcapitan.unreachable"
    )


def scene(expansions: tuple[str, ...], at: int, cards: list[str]) -> State:
    state = start(4, expansions)
    names = [c.name for c in state.cities]
    state = pirate_at(state, names[at % len(names)], 0)
    return hand(state, 0, *cards)


hands = st.lists(st.sampled_from(CARDS), min_size=1, max_size=6, unique=True)


@settings(max_examples=60, deadline=None)
@given(expansions=st.sampled_from(EXPANSIONS), at=st.integers(0, 11), cards=hands)
def test_card_routes_are_shortest_and_playable(expansions, at, cards):
    state = scene(expansions, at, cards)
    routes = card_routes(state, state.players[0].hand)
    brute = brute_shortest(state, tuple(cards))
    assert {city: len(route) for city, route in routes.items()} == brute
    for city, route in routes.items():
        assert len(set(route)) == len(route) and set(route) <= set(cards)
        assert city in ends(state, route)


@pytest.mark.parametrize("expansions", EXPANSIONS, ids="+".join)
@settings(examples(quick=4, deep=14))  # per expansion set: 12 hands (was 40), 42 deep
@given(at=st.integers(0, 11), cards=hands)
def test_rules_1_card_check_says_what_the_old_search_said(expansions, at, cards):
    state = replace(scene(expansions, at, cards), rules=1)
    names = [c.name for c in state.cities if c.name != state.pirate]
    for size in range(1, len(cards) + 1):
        for chosen in itertools.combinations(sorted(cards), size):
            for to in names:
                command = MovePirate(to=to, space=0, cards=chosen)
                try:
                    GAME.decide(state, 0, command, rng_for(b"x", 1))
                    verdict = "ok"
                except RuleViolation as exc:
                    verdict = exc.code
                if verdict in ("ok", "elcapitan.pirate_card_not_needed", "elcapitan.unreachable"):
                    assert verdict == old_verdict(state, chosen, to), (chosen, to)


@pytest.mark.parametrize("expansions", EXPANSIONS, ids="+".join)
def test_card_routes_of_every_card_in_hand_stay_fast(expansions):
    state = start(4, expansions)
    for name in [c.name for c in state.cities]:
        state = pirate_at(state, name, 0)
        routes = card_routes(state, CARDS)  # all 54 cards: still a few hundred search states
        assert set(routes) == {c.name for c in state.cities} - {name}


@pytest.mark.parametrize("expansions", EXPANSIONS, ids="+".join)
@settings(examples(quick=5, deep=20))  # per expansion set: 15 hands (was 60), 60 deep
@given(at=st.integers(0, 11), cards=hands)
def test_rules_4_takes_a_move_with_cards_exactly_when_legal_commands_offers_it(expansions, at, cards):
    """Issue 43, finding 18: a fuzzer found 68 pirate moves with cards that ``decide`` took and
    ``legal_commands`` did not offer (rules 3 took any cards reaching the target). Every ordered choice of
    up to three hand cards, to every city and space: taken if and only if offered."""
    state = scene(expansions, at, cards)
    assert state.rules >= 4  # issue 43 onwards (5: issue 44 only adds take-backs)
    offered = {c for c in GAME.legal_commands(state, 0) if isinstance(c, MovePirate) and c.cards}
    taken = set()
    for size in range(1, min(3, len(cards)) + 1):
        for chosen in itertools.permutations(cards, size):
            for city in state.cities:
                for space in range(3):
                    command = MovePirate(to=city.name, space=space, cards=chosen)
                    try:
                        GAME.decide(state, 0, command, rng_for(b"x", 1))
                    except RuleViolation:
                        continue
                    taken.add(command)
    assert taken == {c for c in offered if len(c.cards) <= 3}
