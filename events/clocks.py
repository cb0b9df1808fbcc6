"""What the log says of each seat's clock, and a tournament's clock rules (pure: no Redis, no time).

The clock service (``workers/jobs/clock.py``) reads these to decide when a seat has run out of time, and the
offline verifier (``services/audit``) reads them again to check that each timeout in a game's log was due:
both from the game's events alone, so both come to the same answer.
"""

from __future__ import annotations

from collections.abc import Iterable

import msgspec

from events.command_ids import is_timeout_id, reserved_prefix
from events.envelope import Envelope


class SeatClocks(msgspec.Struct, kw_only=True):
    """What the log says of each seat's clock: thinking time used (ms) and timeouts suffered."""

    used_ms: dict[int, int] = msgspec.field(default_factory=dict)
    timeouts: dict[int, int] = msgspec.field(default_factory=dict)
    moved: set[int] = msgspec.field(default_factory=set)
    away: set[int] = msgspec.field(default_factory=set)
    """Seats timed out and not back since: a move of the seat's own (an id no server part makes) after
    its timeout takes it back from the clock and a table's stand-in bot (``Clock.stood_in``)."""
    resigned: set[int] = msgspec.field(default_factory=set)
    """Seats whose player resigned (``SeatResigned`` in the log; games before it: a table's record,
    ``workers/jobs/table_clocks.py``, added by the reader): never out of time, a stand-in bot plays them
    to the end."""
    handed: set[int] = msgspec.field(default_factory=set)
    """Seats the clock handed to the stand-in bot by an event (``SeatHandedToBot``): they come back only
    by ``SeatTakenBack`` (the player's control), not by a move of their own (older games' way)."""
    dropped: set[int] = msgspec.field(default_factory=set)
    """Seats dropped by the clock (``SeatDropped``)."""
    moves: dict[int, int] = msgspec.field(default_factory=dict)
    """Commands each seat made (its own, the clock's and a stand-in's alike): what a real-time table's
    per-move increment is paid for (``Clock.increment_ms``)."""
    """Seats that made a move of their own (a command not the clock's): the others never came."""
    last_ts_ms: int = 0
    """When the seats to act began thinking: the time of the last event read, a vote's events aside."""
    last_command_id: str = ""
    """The command of the last event read (a command's first event is the one that charges its seat)."""
    seq: int = 0
    """Events read so far: ``seat_clocks`` goes on from here with the next ones."""


def seat_clocks(envelopes: Iterable[Envelope], clocks: SeatClocks | None = None) -> SeatClocks:
    """Each seat's clock from the game's events alone: a command's first event charges its seat the time
    since the event before it (what the seat spent deciding, in games where one seat acts at a time); a
    command of the clock (id ``timeout-…``, which no client may use) counts as a timeout of its seat.
    With ``clocks`` (read from the events before these), it goes on from there, in place."""
    clocks = clocks if clocks is not None else SeatClocks()
    previous = clocks.last_command_id
    for envelope in envelopes:
        if envelope.type in SEAT_EVENT_TYPES:  # who plays the seat, not a move: nothing charged or counted
            _seat_event(clocks, envelope)
            previous, clocks.seq = envelope.command_id, envelope.seq
            if envelope.type not in VOTE_EVENT_TYPES:  # a vote cast while a seat thinks leaves its clock be
                clocks.last_ts_ms = envelope.ts_ms
            continue
        first_of_command = envelope.command_id != previous
        previous = envelope.command_id
        timeout = is_timeout_id(envelope.command_id)
        if envelope.seat is not None and first_of_command and clocks.last_ts_ms:
            seat = envelope.seat
            clocks.used_ms[seat] = clocks.used_ms.get(seat, 0) + envelope.ts_ms - clocks.last_ts_ms
            if timeout:
                clocks.timeouts[seat] = clocks.timeouts.get(seat, 0) + 1
        if envelope.seat is not None and first_of_command:
            clocks.moves[envelope.seat] = clocks.moves.get(envelope.seat, 0) + 1
        if envelope.seat is not None and first_of_command and not timeout:
            clocks.moved.add(envelope.seat)
        if envelope.seat is not None and first_of_command:
            _mark_away(clocks, envelope.seat, envelope.command_id, timeout)
        clocks.last_ts_ms = envelope.ts_ms
        clocks.seq = envelope.seq
    clocks.last_command_id = previous
    return clocks


def _mark_away(clocks: SeatClocks, seat: int, command_id: str, timeout: bool) -> None:
    if timeout:
        clocks.away.add(seat)
    elif reserved_prefix(command_id) is None and seat not in clocks.handed:
        clocks.away.discard(seat)  # the player's own move: a bot's keeps the seat away


SEAT_EVENT_TYPES = frozenset(
    {"SeatResigned", "SeatHandedToBot", "SeatDropped", "SeatTakenBack", "EndVoteOpened", "EndVoteCast",
     "EndVoteClosed", "GameEndedByVote"}
)  # fmt: skip
"""``domain/seat_control.SEAT_EVENTS`` by their tags (a test checks they agree): read by type alone."""
VOTE_EVENT_TYPES = frozenset({"EndVoteOpened", "EndVoteCast", "EndVoteClosed", "GameEndedByVote"})
"""The vote to end's events: the seats to act go on thinking through it, so their time runs on from the
event before the vote's (``last_ts_ms`` does not move): a vote never restarts a clock, nor takes the time
before it off the seat's bill."""


def _seat_event(clocks: SeatClocks, envelope: Envelope) -> None:
    """A seat event's mark on the clocks; its seat is the envelope's (the command's)."""
    seat = envelope.seat
    if seat is None:
        return
    if envelope.type == "SeatResigned":
        clocks.resigned.add(seat)
    elif envelope.type == "SeatHandedToBot":
        clocks.away.add(seat)
        clocks.handed.add(seat)
    elif envelope.type == "SeatTakenBack":
        clocks.away.discard(seat)
        clocks.handed.discard(seat)
    elif envelope.type == "SeatDropped":
        clocks.dropped.add(seat)


class Clock(msgspec.Struct, frozen=True, kw_only=True):
    """A tournament's clock rules (``None``, or 0 for the total, turns a limit off)."""

    move_ms: int | None = None
    total_ms: int = 0
    forfeit: bool = False
    """A seat timed out once plays its default moves at once from then on."""
    stood_in: bool = False
    """A seat timed out and not back (``SeatClocks.away``) is never out of time again: a table's stand-in
    bot plays its turns (``services/players/table_clock.py``) until its player moves again."""
    increment_ms: int = 0
    """Added to ``total_ms`` for each move the seat made (a real-time table's "10 min + 10 s a move":
    ``services/players/table_clocks.py``); 0 for every tournament, so their timeouts verify as before."""
    then: str = ""
    """What the clock does to a seat after its timeout, as an event (``domain/seat_control.TimeOutSeat``):
    a table's ``bot``, ``drop`` or ``vote``; "" (tournaments): nothing but the timeout."""
    no_show_ms: int | None = None
    """A seat that never moved by itself and has been to act this long in all: a no-show, whose moves
    are the clock's, at once (its time used only grows, so every later turn is at once too)."""

    def out_of_time(self, clocks: SeatClocks, seat: int, elapsed_ms: int) -> bool:
        """Whether ``seat``, to act for ``elapsed_ms`` now, has run out of time."""
        if (self.stood_in and seat in clocks.away) or seat in clocks.resigned:
            return False
        if self.move_ms is not None and elapsed_ms >= self.move_ms:
            return True
        if self.total_ms and clocks.used_ms.get(seat, 0) + elapsed_ms >= self.bank_ms(clocks, seat):
            return True
        never_moved = seat not in clocks.moved
        if (
            self.no_show_ms is not None
            and never_moved
            and clocks.used_ms.get(seat, 0) + elapsed_ms >= self.no_show_ms
        ):
            return True
        return self.forfeit and clocks.timeouts.get(seat, 0) > 0

    def bank_ms(self, clocks: SeatClocks, seat: int) -> int:
        """The seat's whole thinking time so far: the total and an increment for each move it made."""
        return self.total_ms + self.increment_ms * clocks.moves.get(seat, 0)

    def due_after_ms(self, clocks: SeatClocks, seat: int) -> int | None:
        """How long after the last event ``seat``, to act, runs out of time: the least elapsed time at which
        ``out_of_time`` holds (0: already, as for a no-show's later turns; ``None``: never). The clock
        claims at that moment (``workers/jobs/clock_due.py``), not at the next reconcile pass."""
        if (self.stood_in and seat in clocks.away) or seat in clocks.resigned:
            return None
        used = clocks.used_ms.get(seat, 0)
        limits = [self.move_ms] if self.move_ms is not None else []
        if self.total_ms:
            limits.append(self.bank_ms(clocks, seat) - used)
        if self.no_show_ms is not None and seat not in clocks.moved:
            limits.append(self.no_show_ms - used)
        if self.forfeit and clocks.timeouts.get(seat, 0) > 0:
            limits.append(0)
        return max(0, min(limits)) if limits else None


def tournament_clock(move_limit_s: float, total_limit_s: float, no_show_s: float, forfeit: bool) -> Clock:
    """A tournament's clock from its settings (seconds, 0 for off), as the reconcile pass claims with it and
    the verifier checks each timeout against it."""
    return Clock(
        move_ms=int(move_limit_s * 1000) if move_limit_s > 0 else None,
        total_ms=int(total_limit_s * 1000),
        forfeit=forfeit,
        no_show_ms=int(no_show_s * 1000) if no_show_s > 0 else None,
    )
