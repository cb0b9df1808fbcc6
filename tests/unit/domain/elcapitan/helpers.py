"""Builders for El Capitán test states: real set-ups, adjusted with ``msgspec.structs.replace``."""

from __future__ import annotations

from typing import Any

import pytest
from msgspec.structs import replace

from domain.elcapitan import GAME
from domain.elcapitan.commands import BuildWarehouse
from domain.elcapitan.data import CITY_BY_NAME, SITES
from domain.elcapitan.state import EMPTY, PIRATE, CityState, State
from domain.engine import RuleViolation, rng_for


def start(seats: int = 4, expansions: tuple[str, ...] = (), seed: bytes = b"test", first: int = 0) -> State:
    """A fresh game with ``first`` as start player and current player."""
    state, _ = GAME.start(seats, {"expansions": list(expansions)}, seed)
    return replace(state, start_player=first, current=first)


def act(state: State, seat: int, command: Any, n: int = 99) -> tuple[State, list[Any]]:
    """Decide and fold one command."""
    events = GAME.decide(state, seat, command, rng_for(b"test", n))
    return GAME.fold(events, state), events


def player(state: State, seat: int, **changes: Any) -> State:
    players = list(state.players)
    players[seat] = replace(players[seat], **changes)
    return replace(state, players=tuple(players))


def city(state: State, name: str) -> CityState:
    return state.cities[state.city_index(name)]


def set_city(state: State, name: str, **changes: Any) -> State:
    cities = list(state.cities)
    index = state.city_index(name)
    cities[index] = replace(cities[index], **changes)
    return replace(state, cities=tuple(cities))


def chain(state: State, name: str, colours: dict[int, int], frontier: int | None = None) -> State:
    """Put warehouses on a city's track: {site: colour}; the frontier defaults to the highest site."""
    sites = [EMPTY] * SITES
    for site, colour in colours.items():
        sites[site - 1] = colour
    top = frontier if frontier is not None else max(colours, default=0)
    return set_city(state, name, sites=tuple(sites), frontier=top)


def dock(state: State, seat: int, name: str, space: int = 0) -> State:
    """Put ``seat``'s ship on harbour ``space`` of ``name`` (leaving wherever it was)."""
    p = state.players[seat]
    if p.ship not in ("", "bank") and p.harbour != EMPTY:
        old = city(state, p.ship)
        harbours = list(old.harbours)
        harbours[p.harbour] = EMPTY
        state = set_city(state, p.ship, harbours=tuple(harbours))
    target = city(state, name)
    harbours = list(target.harbours)
    harbours[space] = seat
    state = set_city(state, name, harbours=tuple(harbours))
    return player(state, seat, ship=name, harbour=space)


def later_round(state: State) -> State:
    """Past the first round of the game (loans allowed)."""
    return replace(state, round=2)


def pirate_at(state: State, name: str, space: int) -> State:
    """Move the pirate by hand (test set-up only)."""
    old = city(state, state.pirate)
    state = set_city(state, state.pirate, harbours=tuple(EMPTY if h == PIRATE else h for h in old.harbours))
    harbours = list(city(state, name).harbours)
    harbours[space] = PIRATE
    return replace(set_city(state, name, harbours=tuple(harbours)), pirate=name)


def hand(state: State, seat: int, *cards: str) -> State:
    """Give cards to a hand, taking them out of whichever pile held them."""

    def strip(deck: Any) -> Any:
        return replace(
            deck,
            draw=tuple(c for c in deck.draw if c not in cards),
            display=tuple(c for c in deck.display if c not in cards),
            discard=tuple(c for c in deck.discard if c not in cards),
        )

    state = replace(
        state, destinations=strip(state.destinations), interconnections=strip(state.interconnections)
    )
    return player(state, seat, hand=(*state.players[seat].hand, *cards))


def printed(name: str) -> Any:
    return CITY_BY_NAME[name]


def refused(state: State, seat: int, command: Any) -> str:
    """The rule's code for refusing ``command``, which ``legal_commands`` does not list either."""
    with pytest.raises(RuleViolation) as err:
        GAME.decide(state, seat, command, rng_for(b"refused", 1))
    assert command not in GAME.legal_commands(state, seat)
    return err.value.code


def build(state: State, seat: int, site: int, name: str) -> tuple[State, list[Any]]:
    """``seat`` docked in ``name`` on its turn, building a warehouse on ``site``."""
    state = dock(replace(state, current=seat, turn=replace(state.turn, acted=False)), seat, name)
    return act(state, seat, BuildWarehouse(site=site))
