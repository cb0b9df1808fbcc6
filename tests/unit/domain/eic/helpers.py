"""Builders for East India Companies tests: real states from setup, adjusted with msgspec replace."""

from __future__ import annotations

from typing import Any

from msgspec.structs import replace

from domain.eic import GAME, data
from domain.eic.rules.flow import advance
from domain.eic.state import Player, Ship, State
from domain.engine import Rng, rng_for


def start(seats: int = 4, options: dict[str, Any] | None = None, seed: bytes = b"eic-test") -> State:
    """The state after set-up: epoch 1, phase A, the first player to place an envoy."""
    state, _ = GAME.start(seats, options or {}, seed)
    return state


def player(state: State, index: int, **changes: Any) -> State:
    """The state with one player's fields replaced."""
    players = list(state.players)
    players[index] = replace(players[index], **changes)
    return replace(state, players=tuple(players))


def ship(owner: int, kind: str, cargo: tuple[int, int, int, int] = (0, 0, 0, 0), **changes: Any) -> Ship:
    """A ship tile of ``owner``."""
    return Ship(id=f"{owner}:{kind}", kind=kind, cargo=cargo, **changes)


def occupy(state: State, space: str, *players: int) -> State:
    """Envoys of ``players`` on ``space`` (in that order)."""
    i = data.SPACE_IDS.index(space)
    occupants = list(state.occupants)
    occupants[i] = tuple(players)
    return replace(state, occupants=tuple(occupants))


def act(state: State, seat: int, command: Any, n: int = 99) -> tuple[State, list[Any]]:
    """Decide and fold one command."""
    events = GAME.decide(state, seat, command, rng_for(b"eic-test", n))
    return GAME.fold(events, state), events


def run(state: State, seed: bytes = b"run") -> tuple[State, list[Any]]:
    """Let the automatic steps run from a hand-built state whose actor is -1."""
    events = advance(replace(state, actor=-1), Rng(seed.ljust(32, b"\0")))
    return GAME.fold(events, state) if events else state, events


def goods_total(state: State) -> tuple[int, ...]:
    """Every cube of each good, wherever it is."""
    totals = []
    for g in range(4):
        n = state.supply[g] + state.far_east[g] + state.europe[g]
        for p in state.players:
            n += p.warehouse[g] + sum(s.cargo[g] for s in p.ships)
        totals.append(n)
    return tuple(totals)


def shares_total(state: State) -> tuple[int, ...]:
    """Ordinary shares of each company on the exchange or held."""
    return tuple(state.exchange[c] + sum(p.shares[c] for p in state.players) for c in range(state.companies))


def fresh_player(treasury: int = 20, **changes: Any) -> Player:
    """A company with nothing but money (for hand-built states)."""
    return Player(treasury=treasury, **changes)
