"""A minimal dice race, for driving the pipeline in tests: not one of the hosted games.

Seats take turns in order. ``Roll`` rolls one die and moves the seat's token that many steps; the first
token to reach ``GOAL`` wins. ``Note(text)`` appends a remark without using the turn (a cheap command
for throughput tests). Its spectator view hides nothing, so it never stands in for a hidden-information
test.
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
from domain.seat_control import SeatControl, with_seat_control

GOAL = 30


class Roll(Command, frozen=True, kw_only=True):
    pass


class Note(Command, frozen=True, kw_only=True):
    text: str


class RaceStarted(Event, frozen=True, kw_only=True):
    seats: int
    goal: int


class Rolled(Event, frozen=True, kw_only=True):
    seat: Seat
    value: int


class Noted(Event, frozen=True, kw_only=True):
    seat: Seat
    text: str


class RaceWon(Event, frozen=True, kw_only=True):
    seat: Seat


RaceCommand = Roll | Note
RaceEvent = RaceStarted | Rolled | Noted | RaceWon


class RaceState(msgspec.Struct, frozen=True, kw_only=True):
    seats: int
    goal: int
    positions: tuple[int, ...]
    turn: Seat = 0
    notes: int = 0
    winner: Seat | None = None
    seat_control: SeatControl = SeatControl()
    """Resigned seats, a bot's stand-in, a vote to end: the shared seat layer (``domain/seat_control.py``)."""


class RaceView(msgspec.Struct, frozen=True, kw_only=True):
    positions: tuple[int, ...]
    turn: Seat
    notes: int
    winner: Seat | None


def setup(seats: int, options: Mapping[str, Any], seed: bytes) -> list[RaceEvent]:
    check_seat_count("race", seats, 1, 4)
    check_known_options("race", options, ["goal"])
    return [RaceStarted(seats=seats, goal=int(options.get("goal", GOAL)))]


def decide(state: RaceState, seat: Seat, command: RaceCommand, rng: Rng) -> list[RaceEvent]:
    if state.winner is not None:
        raise RuleViolation("race.game_over", "the race is over")
    if isinstance(command, Note):
        if len(command.text) > 100:
            raise RuleViolation("race.note_too_long", "a note has at most 100 characters")
        return [Noted(seat=seat, text=command.text)]
    if seat != state.turn:
        raise RuleViolation("race.not_your_turn", f"it is seat {state.turn}'s turn")
    value = rng.die()
    events: list[RaceEvent] = [Rolled(seat=seat, value=value)]
    if state.positions[seat] + value >= state.goal:
        events.append(RaceWon(seat=seat))
    return events


def evolve(state: RaceState | None, event: RaceEvent) -> RaceState:
    if isinstance(event, RaceStarted):
        return RaceState(seats=event.seats, goal=event.goal, positions=(0,) * event.seats)
    assert state is not None
    if isinstance(event, Rolled):
        positions = list(state.positions)
        positions[event.seat] += event.value
        return msgspec.structs.replace(state, positions=tuple(positions), turn=(event.seat + 1) % state.seats)
    if isinstance(event, Noted):
        return msgspec.structs.replace(state, notes=state.notes + 1)
    return msgspec.structs.replace(state, winner=event.seat)


def legal_commands(state: RaceState, seat: Seat) -> list[RaceCommand]:
    if state.winner is not None or seat != state.turn:
        return []
    return [Roll()]


def to_act(state: RaceState) -> frozenset[Seat]:
    return frozenset() if state.winner is not None else frozenset({state.turn})


def outcome(state: RaceState) -> Outcome | None:
    if state.winner is None:
        return None
    ranking = tuple(sorted(range(state.seats), key=lambda s: (s != state.winner, -state.positions[s], s)))
    return Outcome(ranking=ranking, scores=state.positions, winners=(state.winner,))


def view(state: RaceState, seat: Seat | None) -> RaceView:
    return RaceView(positions=state.positions, turn=state.turn, notes=state.notes, winner=state.winner)


def redact(event: RaceEvent, seat: Seat | None) -> RaceEvent | None:
    return event


PLAIN_RACE: Game[RaceState, RaceCommand, RaceEvent, RaceView] = Game(
    key="race",
    title="Dice race (test game)",
    min_seats=1,
    max_seats=4,
    State=RaceState,
    Command=RaceCommand,
    Event=RaceEvent,
    View=RaceView,
    setup=setup,
    decide=decide,
    evolve=evolve,
    legal_commands=legal_commands,
    to_act=to_act,
    outcome=outcome,
    view=view,
    redact=redact,
)
GAME = with_seat_control(PLAIN_RACE, lambda state: state.positions)
"""With the seat commands and events, as every hosted game (``domain.GAMES``): a table's race resigns."""
