"""Taking back one's moves of the current turn (issue 44): one layer over every game's ``decide`` and ``evolve``.

A seat may take back the moves it made since it began moving, until another seat acts or something hidden or
random comes out (a die, a card, a shuffle, a face-down ship turned up). The take-back is an event, never a
deletion: the chain stays append-only and ``verify`` refolds through it like through any other event.

How it works, with nothing but events (so that every fold, the gateway's, the fold worker's, ``verify``'s and
the offline audit's, agrees without knowing of it):

- When a seat's command opens a run (no window of that seat is open) and reveals nothing, ``decide`` puts
  ``MovesBegan(seat)`` before the command's events. Its ``evolve`` keeps the state before it as the window's
  ``base`` (the state's ``undo`` field). A command of another seat opens that seat's window instead: the first
  seat's moves can no longer be taken back.
- Every later event keeps the window (each game's ``evolve`` copies the state's other fields), except an event
  of the game's ``reveals`` set, which closes it: the game's set-up, every event carrying a chance outcome
  (the command that produced it drew from ``rng_for(seed, n)``, and a take-back does not rewind ``n``, so
  taking it back would re-roll) and every event that shows a viewer something that was hidden from it.
  ``tests/unit/domain/test_take_back.py`` checks in random games that every command that drew randomness produced
  an event of its game's set.
- ``TakeBack`` is decided to ``MovesTakenBack(seat)`` for the window's seat only; its ``evolve`` returns the
  base (with no window: the seat's next move opens a fresh one there).

``TakeBack`` is not among ``legal_commands`` (bots would take back at random, and the lists' pinned tests
stay as they were); the gateway's ``GET /api/games/{id}/undo`` says when a seat may send it.

Versioned: only games started under the game's rules ``since`` or later get the markers and may take back, so
that the games recorded before re-decide to the very events they stored. Tournament games refuse ``TakeBack``
at the gateway (``services/gateway/commands.py``).
"""

from __future__ import annotations

import dataclasses
import functools
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import msgspec
from msgspec.structs import replace

from domain.engine import Command, Event, Game, Rng, Seat, refuse

S = TypeVar("S")


class TakeBack(Command, frozen=True, kw_only=True):
    """Take back one's moves since one began moving (until another seat acts or something is revealed)."""


class MovesBegan(Event, frozen=True, kw_only=True):
    """``seat`` began a run of moves it may take back: the state before this event is where a take-back
    returns to. Put by the engine before the first events of the run's first command."""

    seat: int


class MovesTakenBack(Event, frozen=True, kw_only=True):
    """``seat`` took back its moves since its last ``MovesBegan``: the game is as it was before that event."""

    seat: int


class Window(msgspec.Struct, Generic[S], frozen=True, kw_only=True):
    """An open window for taking back: the seat that may, and the state it would return to."""

    seat: int
    base: S


def may_take_back(state: Any, seat: Seat | None) -> bool:
    """Whether ``seat`` may take back its moves now (the Undo button; decide refuses otherwise)."""
    window = getattr(state, "undo", None)
    return window is not None and seat is not None and window.seat == seat


@dataclass(frozen=True)
class TakeBacks(Generic[S]):
    """One game's ``decide`` and ``evolve`` with take-backs: ``Game(decide=t.decide, evolve=t.evolve, …)``."""

    game: str
    """The game's key, for the refusals' codes."""
    since: int
    """The first rules version whose games may take back."""
    reveals: frozenset[type]
    """The game's event types that close a window (see the module)."""
    inner_decide: Callable[[S, Seat, Any, Rng], list[Any]]
    inner_evolve: Callable[[S | None, Any], S]
    rules_of: Callable[[S], int]
    sometimes: Mapping[type, Callable[[Any], bool]] = dataclasses.field(default_factory=dict)
    """Event types that close a window when their test says so (East India Companies' neutral ship, sent by
    a card drawn at random; a player's ship sent is that player's own secret)."""

    def closes(self, event: Any) -> bool:
        """Whether ``event`` ends every window (it reveals something or carries chance)."""
        kind = type(event)
        if kind in self.reveals:
            return True
        test = self.sometimes.get(kind)
        return test is not None and test(event)

    def decide(self, state: S, seat: Seat, command: Any, rng: Rng) -> list[Any]:
        """The game's decision, with ``MovesBegan`` first where the command opens a run; ``TakeBack`` here."""
        if isinstance(command, TakeBack):
            return [self._take_back(state, seat)]
        events = self.inner_decide(state, seat, command, rng)
        if not events or self.rules_of(state) < self.since:
            return events
        if may_take_back(state, seat) or any(self.closes(event) for event in events):
            return events  # the run goes on, or the command closes any window at once
        return [MovesBegan(seat=seat), *events]

    def decide_folded(
        self,
        inner: Callable[[S, Seat, Any, Rng], tuple[list[Any], S]],
        state: S,
        seat: Seat,
        command: Any,
        rng: Rng,
    ) -> tuple[list[Any], S]:
        """``decide`` with the state its events lead to (a search's step): what ``fold`` would give, the
        window set as ``evolve`` sets it, without folding the events a second time."""
        if isinstance(command, TakeBack):
            taken = self._take_back(state, seat)
            return [taken], self.evolve(state, taken)
        events, after = inner(state, seat, command, rng)
        if not events or self.rules_of(state) < self.since:
            return events, after
        if any(self.closes(event) for event in events):
            return events, (replace(after, undo=None) if getattr(after, "undo", None) is not None else after)  # type: ignore[type-var]
        if may_take_back(state, seat):
            return events, after
        window = Window(seat=seat, base=replace(state, undo=None))  # type: ignore[type-var]
        return [MovesBegan(seat=seat), *events], replace(after, undo=window)  # type: ignore[type-var]

    def _take_back(self, state: S, seat: Seat) -> MovesTakenBack:
        if self.rules_of(state) < self.since:
            refuse(
                self.game, "take_back_unavailable", "this game was started before moves could be taken back"
            )
        if not may_take_back(state, seat):
            refuse(
                self.game,
                "nothing_to_take_back",
                "no moves of yours to take back: another player acted, or something was revealed, since",
            )
        return MovesTakenBack(seat=seat)

    def evolve(self, state: S | None, event: Any) -> S:
        """The game's ``evolve``, keeping the window; the two events of this module here."""
        kind = type(event)
        if kind is MovesBegan:
            now: Any = state  # a game's state: a msgspec Struct with an ``undo`` field
            return replace(now, undo=Window(seat=event.seat, base=replace(now, undo=None)))  # type: ignore[no-any-return]
        if kind is MovesTakenBack:
            window: Window[S] | None = getattr(state, "undo", None)
            if window is None or window.seat != event.seat:
                raise ValueError(f"{self.game}: a take-back by seat {event.seat} with no window of its open")
            return window.base
        after = self.inner_evolve(state, event)
        if getattr(after, "undo", None) is not None and self.closes(event):
            return replace(after, undo=None)  # type: ignore[type-var]
        return after


@dataclass(frozen=True)
class TakeBackRules:
    """What a game tells this layer (``domain/<game>/__init__.py``'s ``TAKE_BACK``)."""

    since: int
    """The first rules version whose games may take back."""
    reveals: frozenset[type]
    """The event types that close a window: set-up, chance, anything hidden shown."""
    sometimes: Mapping[type, Callable[[Any], bool]] = dataclasses.field(default_factory=dict)
    """Event types that close a window when their test says so."""


def with_take_back(game: Game[S, Any, Any, Any], rules: TakeBackRules) -> Game[S, Any, Any, Any]:
    """``game`` whose seats may take back (its state must carry ``undo: Window[State] | None = None``).
    ``domain.GAMES`` holds each game so, inside the seat layer (``domain/seat_control.py``), whose events
    close every window; the game's own ``GAME`` (its rules' tests) decides without markers."""
    layer = TakeBacks(
        game.key, rules.since, rules.reveals, game.decide, game.evolve, game.rules_in, dict(rules.sometimes)
    )
    changes: dict[str, Any] = {}
    folded = getattr(game, "decide_folded", None)  # a search's step that folds as it decides (issue 45)
    if folded is not None:
        changes["decide_folded"] = functools.partial(layer.decide_folded, folded)
    return dataclasses.replace(
        game,
        Command=typing.Union[(*typing.get_args(game.Command), TakeBack)],
        Event=typing.Union[(*typing.get_args(game.Event), MovesBegan, MovesTakenBack)],
        decide=layer.decide,
        evolve=layer.evolve,
        **changes,
    )
