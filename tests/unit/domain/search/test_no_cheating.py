"""The ``strong`` bot decides from its seat's view alone (issue 45): for two states that differ only in
what its seat cannot see (the same view), its choice is the same, with the same seed for its own sampling.

Positions come from greedy games; the other state is made by changing a hidden fact the test's own way:
El Capitán's draw-pile order, Manila's other merchants' shares, East India Companies' other companies'
face-down ships and the market cards the seat may not look at. Each case asserts that the states differ,
that the views are equal, and that the search's choice is equal.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from msgspec.structs import replace

from domain.engine import Game, Rng
from domain.search import search


def _positions(key: str, seed: bytes, moves: int) -> Iterator[tuple[Any, int]]:
    """Positions of a greedy game where the acting seat has a choice."""
    game: Game[Any, Any, Any, Any] = importlib.import_module(f"domain.{key}").GAME
    bots = importlib.import_module(f"domain.{key}.bots")
    state, _ = game.start(3, {}, seed)
    rng = Rng(seed)
    for _ in range(moves):
        if game.outcome(state) is not None:
            return
        seat = min(game.to_act(state))
        if len(game.legal_commands(state, seat)) > 1:
            yield state, seat
        state = game.fold(game.decide(state, seat, bots.greedy_bot(state, seat, rng), rng), state)


def _elcapitan_other(state: Any, seat: int) -> Any:
    d, i = state.destinations, state.interconnections
    return replace(
        state,
        destinations=replace(d, draw=tuple(reversed(d.draw))),
        interconnections=replace(i, draw=tuple(reversed(i.draw))),
    )


def _manila_other(state: Any, seat: int) -> Any:
    """Two other merchants swap one free share of different goods."""
    others = [s for s in range(state.seats) if s != seat and state.players[s].shares]
    for a in others:
        for b in others:
            pa, pb = state.players[a], state.players[b]
            x = next((g for g in pa.shares if g not in pb.shares), None)
            y = next((g for g in pb.shares if g != x and g not in pa.shares), None)
            if a < b and x and y:
                players = list(state.players)
                players[a] = replace(pa, shares=_swap(pa.shares, x, y))
                players[b] = replace(pb, shares=_swap(pb.shares, y, x))
                return replace(state, players=tuple(players))
    return state


def _swap(shares: tuple[str, ...], out: str, into: str) -> tuple[str, ...]:
    from domain.manila.state import sort_goods

    kept = list(shares)
    kept.remove(out)
    return sort_goods([*kept, into])


def _eic_other(state: Any, seat: int) -> Any:
    """Another company's two unseen ships of different kinds trade places (the zones follow), and a
    market card the seat has not seen is another card of the deck."""
    from domain.eic.board import with_player
    from domain.eic.bots import _unseen
    from domain.eic.rules.navigation import deck, influence_viewers

    for owner in range(state.seats):
        ships = state.players[owner].ships
        hidden = [k for k, s in enumerate(ships) if owner != seat and _unseen(state, s)]
        pair = next(((a, b) for a in hidden for b in hidden if ships[a].kind < ships[b].kind), None)
        if pair is not None:
            a, b = pair
            swapped = list(ships)
            swapped[a] = replace(ships[a], id=ships[b].id, kind=ships[b].kind, gained=ships[b].gained)
            swapped[b] = replace(ships[b], id=ships[a].id, kind=ships[a].kind, gained=ships[a].gained)
            names = {ships[a].id: ships[b].id, ships[b].id: ships[a].id}
            zones = tuple(tuple(names.get(i, i) for i in z) for z in state.zones)
            state = replace(with_player(state, owner, ships=tuple(swapped)), zones=zones)
            break
    for market, field in (("far_east", "fe_card"), ("europe", "eu_card")):
        card = getattr(state, field)
        if card is not None and seat not in influence_viewers(state, market) and state.phase != "over":
            revealed = state.fe_revealed if market == "far_east" else state.eu_revealed
            other = next((c for c in deck(state, market) if c != card), None)
            if not revealed and other is not None:
                state = replace(state, **{field: other})
    return state


ALTER: dict[str, Callable[[Any, int], Any]] = {
    "elcapitan": _elcapitan_other,
    "manila": _manila_other,
    "eic": _eic_other,
}


@pytest.mark.parametrize("key", sorted(ALTER))
def test_the_choice_is_the_same_for_states_that_differ_only_in_what_the_seat_cannot_see(key: str) -> None:
    game: Game[Any, Any, Any, Any] = importlib.import_module(f"domain.{key}").GAME
    bots = importlib.import_module(f"domain.{key}.bots")
    compared = 0
    for state, seat in _positions(key, f"no-cheating-{key}".encode(), 400):
        other = ALTER[key](state, seat)
        if other == state:
            continue
        assert game.view(other, seat) == game.view(state, seat)
        choices = [search(bots.SEARCHER, s, seat, Rng(b"the bot's own seed"), 6) for s in (state, other)]
        assert choices[0] == choices[1]
        compared += 1
        if compared == 4:
            break
    assert compared == 4  # enough positions with a hidden fact to change
