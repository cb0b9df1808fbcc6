"""A two-seat counter, for benchmarks only: not one of the hosted games.

Seats alternate one ``Move`` per turn; each move adds one to the counter, and the game ends when the counter
reaches ``limit`` (option, default ``LIMIT``). It is the load of the boardgame.io harness in
``tests/bench/boardgameio/`` (two players taking turns as fast as the pushed state lets them), so the
two servers can be measured side by side on the same work.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from domain.engine import (
    Command,
    Event,
    Game,
    Outcome,
    Rng,
    RuleViolation,
    Seat,
    check_known_options,
    check_seat_count,
)

LIMIT = 100


class Move(Command, frozen=True, kw_only=True):
    pass


class CounterStarted(Event, frozen=True, kw_only=True):
    limit: int


class Moved(Event, frozen=True, kw_only=True):
    seat: Seat
    count: int


CounterCommand = Move
CounterEvent = CounterStarted | Moved


class CounterState(msgspec.Struct, frozen=True, kw_only=True):
    limit: int
    count: int = 0
    turn: Seat = 0


class CounterView(msgspec.Struct, frozen=True, kw_only=True):
    count: int
    turn: Seat
    limit: int


def setup(seats: int, options: Mapping[str, Any], seed: bytes) -> list[CounterEvent]:
    check_seat_count("counter", seats, 2, 2)
    check_known_options("counter", options, ["limit"])
    return [CounterStarted(limit=int(options.get("limit", LIMIT)))]


def decide(state: CounterState, seat: Seat, command: CounterCommand, rng: Rng) -> list[CounterEvent]:
    if state.count >= state.limit:
        raise RuleViolation("counter.game_over", "the counter has reached its limit")
    if seat != state.turn:
        raise RuleViolation("counter.not_your_turn", f"it is seat {state.turn}'s turn")
    return [Moved(seat=seat, count=state.count + 1)]


def evolve(state: CounterState | None, event: CounterEvent) -> CounterState:
    if isinstance(event, CounterStarted):
        return CounterState(limit=event.limit)
    assert state is not None
    return msgspec.structs.replace(state, count=event.count, turn=1 - event.seat)


def legal_commands(state: CounterState, seat: Seat) -> list[CounterCommand]:
    return [Move()] if state.count < state.limit and seat == state.turn else []


def to_act(state: CounterState) -> frozenset[Seat]:
    return frozenset() if state.count >= state.limit else frozenset({state.turn})


def outcome(state: CounterState) -> Outcome | None:
    if state.count < state.limit:
        return None
    return Outcome(ranking=(0, 1), scores=(0, 0), winners=(0, 1))


def view(state: CounterState, seat: Seat | None) -> CounterView:
    return CounterView(count=state.count, turn=state.turn, limit=state.limit)


def redact(event: CounterEvent, seat: Seat | None) -> CounterEvent | None:
    return event


GAME: Game[CounterState, CounterCommand, CounterEvent, CounterView] = Game(
    key="counter",
    title="Counter (benchmark game)",
    min_seats=2,
    max_seats=2,
    State=CounterState,
    Command=CounterCommand,
    Event=CounterEvent,
    View=CounterView,
    setup=setup,
    decide=decide,
    evolve=evolve,
    legal_commands=legal_commands,
    to_act=to_act,
    outcome=outcome,
    view=view,
    redact=redact,
)
