"""Builders for Manila test states: real play from setup, and ``replace`` where play is impractical."""

from __future__ import annotations

from typing import Any

from msgspec.structs import replace

from domain.engine import Rng
from domain.manila import GAME
from domain.manila import commands as cmd
from domain.manila.state import Boat, Player, State


class Dice(Rng):
    """A generator whose dice show the given values (chance is an input of decide, not a rule)."""

    def __init__(self, *values: int) -> None:
        super().__init__(b"\x00" * 32)
        self.values = list(values)

    def die(self, sides: int = 6) -> int:
        return self.values.pop(0)


def start(seats: int = 4, options: dict[str, Any] | None = None, seed: bytes = b"manila") -> State:
    state, _ = GAME.start(seats, options or {}, seed)
    return state


def act(state: State, seat: int, command: Any, rng: Rng | None = None) -> tuple[State, list[Any]]:
    """``decide`` then fold: the state after the command and the events it produced."""
    events = GAME.decide(state, seat, command, rng or Rng(b"\x07" * 32))
    return GAME.fold(events, state), events


def to_placement(seats: int = 4, left: str = "silk", starts: tuple[int, ...] = (3, 3, 3), **kw: Any) -> State:
    """Seat 0 becomes harbour master for 1 peso, buys nothing and loads the boats."""
    state = start(seats, **kw)
    state, _ = act(state, 0, cmd.Bid(amount=1))
    for seat in range(1, seats):
        state, _ = act(state, seat, cmd.PassBid())
    state, _ = act(state, 0, cmd.SkipShare())
    state, _ = act(state, 0, cmd.LoadBoats(left_ashore=left, starts=starts))
    return state


def with_players(state: State, *players: Player) -> State:
    return replace(state, players=tuple(players))


def before_last_roll(state: State, boats: tuple[Boat, ...], **fields: Any) -> State:
    """The moment just before roll 3: only the small pilot (seat 0) is still to act (and will pass)."""
    return replace(
        state,
        phase="pilot",
        pilot_turn="small",
        small_pilot=0,
        rolls=2,
        step=5,
        boats=boats,
        placer=None,
        **fields,
    )


def last_roll(state: State, *dice: int) -> tuple[State, list[Any]]:
    """The small pilot passes and the third roll shows ``dice``."""
    return act(state, 0, cmd.PassPilot(), Dice(*dice))


def boat(good: str, position: int, *seats: int | None, size: int = 3) -> Boat:
    size = 4 if good == "jade" else size
    occupants = tuple(seats) + (None,) * (size - len(seats))
    return Boat(good=good, position=position, seats=occupants)


def cash(state: State) -> tuple[int, ...]:
    return tuple(p.cash for p in state.players)


def until(state: State, events: list[Any], kind: type) -> State:
    """Fold ``events`` onto ``state`` up to and including the first event of type ``kind``."""
    for event in events:
        state = GAME.evolve(state, event)
        if isinstance(event, kind):
            break
    return state
