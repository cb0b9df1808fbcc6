"""The engine contract every game implements (DESIGN.md, "The engine contract").

A game is a *decider*: ``setup`` opens it, ``decide`` turns a command into events (or refuses it with a
``RuleViolation``), ``evolve`` folds one event into the state. Queries (``legal_commands``, ``to_act``,
``outcome``, ``view``, ``redact``) never change anything.

Pure: no I/O, no clock, no module-level randomness. Chance comes only from ``rng_for(seed, n)``, our own
SHA-256 counter-mode generator, whose every method is pinned by golden-value tests so that ``verify`` can
re-decide a game years from now on another Python.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, MutableSequence, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, TypeVar

import msgspec

Seat = int
"""Seats are numbered ``0 … seats-1``."""

Options = Mapping[str, Any]
"""Game options: plain JSON (``{"expansions": ["porto"], "variant_boarding": true}``)."""


class RuleViolation(Exception):
    """A command that the rules refuse. ``code`` is stable and namespaced (``"manila.not_your_turn"``)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class Command(msgspec.Struct, frozen=True, kw_only=True, tag_field="type"):
    """Base of every game's commands: imperative names, tagged by class name in the ``type`` field."""


class Event(msgspec.Struct, frozen=True, kw_only=True, tag_field="type"):
    """Base of every game's events: past-tense names, tagged by class name in the ``type`` field.

    ``version`` is the schema version of the event type; raise it when a field changes meaning and
    register an upcaster in ``events/upcast.py`` for the older form.
    """

    version: ClassVar[int] = 1


class Outcome(msgspec.Struct, frozen=True, kw_only=True):
    """The end of a game: the final ranking after every tie-break the rulebook names."""

    ranking: tuple[Seat, ...]
    """Seats from first place to last, ties already broken where the rulebook breaks them."""
    scores: tuple[int, ...]
    """Per seat (index = seat): what the rulebook ranks by (money, wealth, florins)."""
    winners: tuple[Seat, ...]
    """Seats sharing first place; more than one only where the rulebook leaves a tie standing."""
    tie_break: str = ""
    """How a tie for any place was broken, in words, or empty when there was none."""


# --- randomness -----------------------------------------------------------------------------------------

T = TypeVar("T")


class Rng:
    """Deterministic random numbers: SHA-256 in counter mode over a 32-byte key.

    Every method is defined here in terms of the raw byte stream, never Python's ``random`` module, so
    its output is the same on every machine and every Python version (pinned by golden tests).
    """

    __slots__ = ("_buffer", "_counter", "_key", "_material")

    def __init__(self, key: bytes = b"", *, material: bytes = b"") -> None:
        self._key = key
        self._material = material
        """When set, the key is ``sha256(material)``, derived at the first draw: most commands draw nothing."""
        self._counter = 0
        self._buffer = b""

    def _take(self, n: int) -> bytes:
        if self._material:
            self._key, self._material = hashlib.sha256(self._material).digest(), b""
        while len(self._buffer) < n:
            block = hashlib.sha256(self._key + self._counter.to_bytes(8, "big")).digest()
            self._counter += 1
            self._buffer += block
        out, self._buffer = self._buffer[:n], self._buffer[n:]
        return out

    def _below(self, n: int) -> int:
        """A uniform integer in ``[0, n)`` by rejection sampling (no modulo bias)."""
        if n <= 0:
            raise ValueError("range must be non-empty")
        if n == 1:
            return 0
        nbytes = ((n - 1).bit_length() + 7) // 8
        span = 256**nbytes
        limit = span - span % n
        while True:
            value = int.from_bytes(self._take(nbytes), "big")
            if value < limit:
                return value % n

    def random(self) -> float:
        """A float in ``[0.0, 1.0)`` with 53 random bits."""
        return (int.from_bytes(self._take(7), "big") >> 3) / float(1 << 53)

    def randint(self, a: int, b: int) -> int:
        """An integer in ``[a, b]``, both ends included."""
        return a + self._below(b - a + 1)

    def die(self, sides: int = 6) -> int:
        """One roll of a die with ``sides`` faces: ``1 … sides``."""
        return self.randint(1, sides)

    def choice(self, items: Sequence[T]) -> T:
        """One element of a non-empty sequence."""
        return items[self._below(len(items))]

    def shuffle(self, items: MutableSequence[Any]) -> None:
        """Shuffle in place (Fisher–Yates, from the back)."""
        for i in range(len(items) - 1, 0, -1):
            j = self._below(i + 1)
            items[i], items[j] = items[j], items[i]

    def shuffled(self, items: Sequence[T]) -> list[T]:
        """A shuffled copy."""
        out = list(items)
        self.shuffle(out)
        return out

    def sample(self, items: Sequence[T], k: int) -> list[T]:
        """``k`` distinct elements, in the order drawn."""
        pool = list(items)
        if not 0 <= k <= len(pool):
            raise ValueError("sample larger than population")
        out: list[T] = []
        for _ in range(k):
            out.append(pool.pop(self._below(len(pool))))
        return out


def rng_for(seed: bytes, n: int) -> Rng:
    """The generator for the command that will produce event number ``n`` (the first event is 1).

    ``setup`` uses ``rng_for(seed, 1)``. Derived from ``(seed, n)`` alone, so a replay draws the same.
    """
    return Rng(material=b"harbormaster/rng/v1\x00" + seed + n.to_bytes(8, "big"))


def seed_commitment(seed: bytes) -> str:
    """What ``GameCreated`` publishes instead of the seed: ``sha256(seed)`` in hex."""
    return hashlib.sha256(seed).hexdigest()


# --- the game record ------------------------------------------------------------------------------------

S = TypeVar("S")
C = TypeVar("C")
E = TypeVar("E")
V = TypeVar("V")


@dataclass(frozen=True, eq=False)  # identity: a game record is one object, and is hashable as such
class Game(Generic[S, C, E, V]):
    """One game's entry in ``domain.GAMES``: its message types and its pure functions.

    ``Command``, ``Event`` and ``View`` are the types ``msgspec`` decodes into (``Command`` and ``Event``
    are tagged unions); ``State`` is a ``msgspec.Struct`` so that snapshots encode with msgpack.
    """

    key: str
    title: str
    min_seats: int
    max_seats: int
    State: type[S]
    Command: Any
    Event: Any
    View: Any
    setup: Callable[[int, Options, bytes], list[E]]
    decide: Callable[[S, Seat, C, Rng], list[E]]
    evolve: Callable[[S | None, E], S]
    legal_commands: Callable[[S, Seat], list[C]]
    to_act: Callable[[S], frozenset[Seat]]
    outcome: Callable[[S], Outcome | None]
    view: Callable[[S, Seat | None], V]
    redact: Callable[[E, Seat | None], E | None]
    option_examples: tuple[Options, ...] = ({},)
    """Option sets worth testing every contract property under (each expansion, each variant)."""

    def fold(self, events: Sequence[E], state: S | None = None) -> S:
        """Apply ``events`` in order, starting from ``state`` (``None``: before the first event)."""
        for event in events:
            state = self.evolve(state, event)
        if state is None:
            raise ValueError("no events to fold")
        return state

    def start(self, seats: int, options: Options, seed: bytes) -> tuple[S, list[E]]:
        """``setup`` and fold its events: the state at the start of play, and the opening events."""
        events = self.setup(seats, options, seed)
        return self.fold(events), events


def check_seat_count(game_key: str, seats: int, low: int, high: int) -> None:
    """Refuse a seat count the rulebook does not cover."""
    if not low <= seats <= high:
        raise RuleViolation(
            f"{game_key}.seat_count", f"this game is for {low} to {high} players, not {seats}"
        )


def check_known_options(game_key: str, options: Options, known: Sequence[str]) -> None:
    """Refuse options this game does not know (a typo must not silently switch a rule off)."""
    unknown = sorted(set(options) - set(known))
    if unknown:
        allowed = ", ".join(known) or "none"
        raise RuleViolation(
            f"{game_key}.unknown_option",
            f"unknown option(s) {', '.join(unknown)}; this game knows: {allowed}",
        )


Bot = Callable[[Any, Seat, Rng], Any]
"""A bot policy: ``(state, seat, rng) -> command``, chosen among ``legal_commands(state, seat)``."""


class PlayedGame(msgspec.Struct, frozen=True, kw_only=True):
    """What ``play_out`` returns: the final state, every event and how many commands were sent."""

    state: Any
    events: list[Any]
    commands: int


def play_out(
    game: Game[Any, Any, Any, Any],
    seats: int,
    options: Options,
    seed: bytes,
    bots: Sequence[Bot],
    max_commands: int = 200_000,
) -> PlayedGame:
    """Play a whole game with one bot per seat, drawing chance exactly as the service does.

    The bots' own choices use a generator derived from the seed too, so a whole game is a function of
    ``(seed, bots)``. Raises ``RuntimeError`` if the game does not end within ``max_commands``.
    """
    state, events = game.start(seats, options, seed)
    bot_rng = Rng(hashlib.sha256(b"harbormaster/bots\x00" + seed).digest())
    sent = 0
    while game.outcome(state) is None:
        if sent >= max_commands:
            raise RuntimeError(f"{game.key}: no outcome after {max_commands} commands")
        acting = sorted(game.to_act(state))
        if not acting:
            raise RuntimeError(f"{game.key}: nobody to act and no outcome")
        seat = acting[0] if len(acting) == 1 else bot_rng.choice(acting)
        command = bots[seat](state, seat, bot_rng)
        new_events = game.decide(state, seat, command, rng_for(seed, len(events) + 1))
        state = game.fold(new_events, state)
        events.extend(new_events)
        sent += 1
    return PlayedGame(state=state, events=events, commands=sent)
