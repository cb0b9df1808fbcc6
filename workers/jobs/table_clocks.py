"""The clock a table is opened with (issue 44: "a player who stops playing freezes the game for ever").

Two kinds, as on Board Game Arena, each a preset or custom values:

- **real-time**: minutes for the whole game per seat and an increment per move (``10 min + 10 s a move``):
  ``Clock(total_ms, increment_ms)``: a seat's bank is its minutes plus the increment for each move it made;
- **turn-based**: hours or days for each move (``1 day a move``): ``Clock(move_ms)``.

Both run from the game's event log alone (``events/clocks.seat_clocks``: each command charges its seat the
time since the event before it), so a restart of any process changes no clock. What happens when a seat's
time runs out is the table's choice, ``on_timeout``:

- ``bot``: the clock plays the seat's default move (its timeout), then a stand-in bot plays the seat's turns
  (``services/players/table_clock.py``) until its player takes it back by moving again (``Clock.stood_in``);
- ``drop``: the seat is dropped: the clock plays its default move at once on each of its turns
  (``Clock.forfeit``), and the game goes on for the others;
- ``vote``: as ``bot``, and the players present vote whether to end the game (a majority ends it, the
  absent seat last: ``domain/seat_control.py``).

After the timeout the clock records what it did as an event of the game's log (``TimeOutSeat``:
``SeatHandedToBot``, ``SeatDropped``, ``EndVoteOpened``); the player takes a seat back with ``TakeSeatBack``.

The choice is stored beside the game (``clock_key``, written with the table's start) and read by the fold
worker's clock hook and watcher (``workers/jobs/clock_due.py``) and by ``GET /api/games/{id}/clock``.
"""

from __future__ import annotations

from typing import Any

import msgspec

from events import keys
from events.clocks import Clock, SeatClocks
from events.store import LoadedGame

ON_TIMEOUT = ("bot", "drop", "vote")
FORFEITED = keys.TABLES_FORFEITED
"""Table games with a seat out of time (``services/players/table_clock.py``'s pass gives their away seats
to the stand-in): the idle limit's timeouts and a table clock's ``bot`` timeouts alike."""
DEFAULT_STAND_IN = "greedy"
"""The bot that stands in when the server names none (``HARBORMASTER_TABLE_STAND_IN``): quick, and in every
game (``workers.jobs.bots.bot_names``)."""
MINUTE_MS, HOUR_MS = 60_000, 3_600_000


class TableClock(msgspec.Struct, frozen=True, kw_only=True):
    """A table's clock: ``realtime`` (``minutes`` a game, ``increment_s`` a move) or ``turn`` (``hours`` a
    move); ``none`` is the old tables' idle limit alone (``HARBORMASTER_TABLE_GAME_IDLE_HOURS``)."""

    kind: str = "none"
    minutes: int = 0
    increment_s: int = 0
    hours: int = 0
    on_timeout: str = "bot"

    def to_clock(self) -> Clock | None:
        if self.kind == "realtime":
            return Clock(
                total_ms=self.minutes * MINUTE_MS,
                increment_ms=self.increment_s * 1000,
                forfeit=self.on_timeout == "drop",
                stood_in=self.on_timeout != "drop",
                then=self.on_timeout,
            )
        if self.kind == "turn":
            return Clock(
                move_ms=self.hours * HOUR_MS,
                forfeit=self.on_timeout == "drop",
                stood_in=self.on_timeout != "drop",
                then=self.on_timeout,
            )
        return None

    def label(self) -> str:
        if self.kind == "realtime":
            return f"{self.minutes} min + {self.increment_s} s/move"
        if self.kind == "turn":
            days, hours = divmod(self.hours, 24)
            return f"{days} day{'s' * (days != 1)}/move" if not hours else f"{self.hours} h/move"
        return "no clock"


PRESETS: dict[str, TableClock] = {
    "blitz": TableClock(kind="realtime", minutes=5, increment_s=5),
    "rapid": TableClock(kind="realtime", minutes=10, increment_s=10),
    "slow": TableClock(kind="realtime", minutes=30, increment_s=30),
    "day": TableClock(kind="turn", hours=24),
    "three-days": TableClock(kind="turn", hours=72),
    "none": TableClock(),
}
"""Named choices (the lobby's menu); ``rapid`` is ``10 min + 10 s/move``, ``day`` is ``1 day/move``."""

LIMITS = {"minutes": (1, 240), "increment_s": (0, 600), "hours": (1, 14 * 24)}
"""Custom values' ranges: a real-time game of 1 minute to 4 hours a seat with up to 10 minutes a move, a
turn-based move of an hour to two weeks."""


class ClockChoice(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """``POST /api/tables``' ``clock``: a preset's name, or custom values of one kind."""

    preset: str | None = None
    kind: str | None = None
    minutes: int = 0
    increment_s: int = 0
    hours: int = 0
    on_timeout: str = "bot"


def chosen(choice: ClockChoice | None) -> TableClock:
    """The clock a table is opened with; ``ValueError`` says what is wrong with a choice."""
    if choice is None:
        return PRESETS["none"]
    if choice.on_timeout not in ON_TIMEOUT:
        raise ValueError(f"on_timeout is one of {', '.join(ON_TIMEOUT)}, not {choice.on_timeout!r}")
    if choice.preset is not None:
        if choice.kind is not None or choice.minutes or choice.increment_s or choice.hours:
            raise ValueError("a clock is a preset or custom values, not both")
        preset = PRESETS.get(choice.preset)
        if preset is None:
            raise ValueError(f"clock presets: {', '.join(PRESETS)}; not {choice.preset!r}")
        return msgspec.structs.replace(preset, on_timeout=choice.on_timeout)
    return _custom(choice)


def _custom(choice: ClockChoice) -> TableClock:
    if choice.kind == "realtime":
        _in_range("minutes", choice.minutes)
        _in_range("increment_s", choice.increment_s)
        if choice.hours:
            raise ValueError("a real-time clock has minutes and increment_s, not hours")
        return TableClock(
            kind="realtime",
            minutes=choice.minutes,
            increment_s=choice.increment_s,
            on_timeout=choice.on_timeout,
        )
    if choice.kind == "turn":
        _in_range("hours", choice.hours)
        if choice.minutes or choice.increment_s:
            raise ValueError("a turn-based clock has hours a move, not minutes or increment_s")
        return TableClock(kind="turn", hours=choice.hours, on_timeout=choice.on_timeout)
    raise ValueError(f"a custom clock's kind is realtime or turn, not {choice.kind!r}")


def _in_range(name: str, value: int) -> None:
    low, high = LIMITS[name]
    if not low <= value <= high:
        raise ValueError(f"{name} is from {low} to {high}, not {value}")


def clock_key(game_id: str) -> str:
    """The clock of a table's game (JSON ``TableClock``), in the game's own hash slot."""
    return keys.game_key(game_id, "table_clock")


def encode(clock: TableClock) -> bytes:
    return msgspec.json.encode(clock)


def decode(raw: bytes | str | None) -> TableClock | None:
    """A stored clock, or ``None`` for none or a record that is not one (a bad record stops no clock hook:
    the game is then timed by the idle limit alone, as a table without a clock)."""
    if raw is None:
        return None
    try:
        clock = msgspec.json.decode(raw, type=TableClock)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
    try:  # the ranges a table is opened with hold for what is read back, too
        return chosen(ClockChoice(**msgspec.structs.asdict(clock)))
    except ValueError:
        return None


def read(client: Any, game_id: str) -> TableClock | None:
    """The table clock of ``game_id`` (synchronous client), or ``None``."""
    return decode(client.get(clock_key(game_id)))


def resigned_key(game_id: str) -> str:
    """The seats of a table's game whose players resigned (a set; ``services/players/resign.py``)."""
    return keys.game_key(game_id, "resigned")


def resigned(client: Any, game_id: str) -> set[int]:
    return {int(raw) for raw in client.smembers(resigned_key(game_id)) if raw.isdigit()}


def stand_in_seats(loaded: LoadedGame, clocks: SeatClocks, clock: Clock | None) -> dict[str, str]:
    """The seats to act that the stand-in bot plays now: resigned ones, and those a ``bot`` clock timed out
    whose player has not moved since (``SeatClocks.away``); seat (as text) -> bot, as the scheduler takes."""
    if loaded.state is None or loaded.game.outcome(loaded.state) is not None:
        return {}
    away = clocks.away if clock is not None and clock.stood_in else set()
    return {
        str(seat): DEFAULT_STAND_IN
        for seat in loaded.game.to_act(loaded.state)
        if seat in away | clocks.resigned
    }
