"""The engine contract every game implements (docs/design-brief.md, "The engine contract").

A game is a *decider*: ``setup`` opens it, ``decide`` turns a command into events (or refuses it with a
``RuleViolation``), ``evolve`` folds one event into the state. Queries (``legal_commands``, ``to_act``,
``outcome``, ``view``, ``redact``) never change anything.

Pure: no I/O, no clock, no module-level randomness. Chance comes only from ``rng_for(seed, n)``, our own
SHA-256 counter-mode generator (drawn for a command by :func:`decide_at` alone), whose every method is
pinned by golden-value tests so that ``verify`` can re-decide a game years from now on another Python.

Bounded: no query and no decision may stall the server, whatever the players did to reach the state.
``legal_commands`` returns at most :data:`MAX_LEGAL_COMMANDS` commands in every reachable state, and
``legal_commands`` and ``decide`` take time polynomial in the size of the state and the command (a hand, a
harbour, a cargo), never the number of combinations of its parts: a choice of many parts (the cards that
pay for El Capitán's pirate, an amount to bid) is offered as one command whose parts ``decide`` checks
(``legal_commands`` then lists one representative, and ``decide`` accepts any other valid choice), or
as a sequence of commands, never as the list of every combination. ``tests/unit/contract/test_bounded_rules.py``
plays hoarding and random players over many seeds and every option set against this bound; ``make bench``
prints the largest list and the slowest call per game (``tests/bench/bench_rules_bound.py``).

Versioned: a game is decided under the rules it started with. A game whose rules change raises its
``Game.rules`` and records the version in its first event (a stream without one was decided under version
1); ``decide``, ``evolve`` and ``legal_commands`` read it from the state, and ``verify`` sets an old game up
again under its own version (``Game.setup_for``), so games recorded before a rule change still verify.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, MutableSequence, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, NoReturn, TypeVar

import msgspec

Seat = int
"""Seats are numbered ``0 … seats-1``."""

Options = Mapping[str, Any]
"""Game options: plain JSON (``{"expansions": ["porto"], "variant_boarding": true}``)."""


MAX_LEGAL_COMMANDS = 250
"""The most commands ``legal_commands`` may return for one seat in any reachable state (see the module).

The largest lists are choices the player makes part by part on the board, each part offered: El Capitán's
sailings (every card in hand to every city it reaches: 157 with all 54 cards in one hand) beside the
pirate's moves (free, paid and by cards: 69), 235 at most; East India Companies' envoy placements (envoy,
space, ship bought and ship given up), about 200 at most; Manila's load choices, about 100, and its bids,
capped at 200 (``manila.rules.auction.BIDS_OFFERED``)."""


class RuleViolation(Exception):
    """A command that the rules refuse. ``code`` is stable and namespaced (``"manila.not_your_turn"``)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


def refuse(game: str, code: str, message: str) -> NoReturn:
    """Raise the refusal ``<game>.<code>``. It raises rather than returns (issue 46): a returned refusal
    without its ``raise`` enforced nothing, and ``NoReturn`` lets the type checker see the branch ends."""
    raise RuleViolation(f"{game}.{code}", message)


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
    """What the game's header (``events.envelope.GameHeader.seed_commitment``, hashed into the chain's first
    link) publishes instead of the seed: ``sha256(seed)`` in hex."""
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
    rules: int = 1
    """The version of the rules new games are set up and decided under (raised with each rule change)."""
    setup_under: Callable[[int, Options, bytes, int], list[E]] | None = None
    """``setup`` under an older rules version (its last argument); ``None`` while there is only one."""
    rules_of: Callable[[S], int] | None = None
    """The rules version a game was started under, read from its state (the three games keep it in a field:
    ``operator.attrgetter("rules")``, no function of theirs on every decision); ``None``: always ``rules``."""
    decide_folded: Callable[[S, Seat, C, Rng], tuple[list[E], S]] | None = None
    """``decide`` with the state its events lead to, for a game whose ``decide`` folds them anyway (to find
    who acts next); ``None``: :meth:`play` folds them after ``decide``."""

    def setup_for(self, seats: int, options: Options, seed: bytes, rules: int) -> list[E]:
        """The opening events of a game started under rules version ``rules`` (``verify`` of an old game)."""
        if rules == self.rules or self.setup_under is None:
            return self.setup(seats, options, seed)
        return self.setup_under(seats, options, seed, rules)

    def play(self, state: S, seat: Seat, command: C, rng: Rng) -> tuple[list[E], S]:
        """``command`` decided on ``state``: its events and the state they lead to, ``fold(events, state)``
        (a search's step, issue 45: a game's ``decide_folded`` spares folding the events twice)."""
        if self.decide_folded is not None:
            return self.decide_folded(state, seat, command, rng)
        events = self.decide(state, seat, command, rng)
        return events, self.fold(events, state)

    def rules_in(self, state: S) -> int:
        """The rules version ``state``'s game is decided under."""
        return self.rules if self.rules_of is None else self.rules_of(state)

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


def decide_at(game: Game[S, C, E, V], state: S, seat: Seat, command: C, seed: bytes, seq: int) -> list[E]:
    """The determinism step: ``command`` decided on ``state``, the game at position ``seq``.

    The one place that pairs a decision with its chance: the command's events start at ``seq + 1``, so it
    draws from ``rng_for(seed, seq + 1)``. The fold worker, ``play_out`` and ``verify`` all decide through
    it, so a replay draws what the game drew. Raises ``RuleViolation`` for a command the rules refuse.
    """
    return game.decide(state, seat, command, rng_for(seed, seq + 1))


def play_at(
    game: Game[S, C, E, V], state: S, seat: Seat, command: C, seed: bytes, seq: int
) -> tuple[list[E], S]:
    """:func:`decide_at` with the state the events lead to (``Game.play``): a search's step."""
    return game.play(state, seat, command, rng_for(seed, seq + 1))


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
        new_events = decide_at(game, state, seat, command, seed, len(events))
        state = game.fold(new_events, state)
        events.extend(new_events)
        sent += 1
    return PlayedGame(state=state, events=events, commands=sent)
