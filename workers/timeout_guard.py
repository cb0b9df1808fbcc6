"""The fold worker's own check of a clock's timeout (issue 42): applied only at the position it was claimed
at, and only once its seat is out of time by the game's log, as ``tournament verify`` holds it
(``services/audit/timeouts.overdue``: the time from the event at the claimed position to the timeout's
first event, under the tournament's clock, with the seats' clocks read from the log up to that position;
outside a tournament, only that the time does not run backwards).

A claimer (the fold worker's hook, the clock watcher, the reconcile pass) decides on what it read of the
game a moment before, and several run at once: one read the time of the game's last move, the game moved
on, then it loaded the new position and held it to the old time (after a Redis kill, when every game was
overdue together and the fold worker was folding the backlog, about one short chaos run in five). The fold
worker decides each command on the game's position itself, so this is the one place no claimer's race can
pass: a timeout claimed at another position, or not yet due by the log's times, is refused before its rules
run, acknowledged and logged with the reason (``timeout_dropped``; not a dead letter: two claimers racing a
move is routine, a few a minute after a Redis kill). No result is recorded, so the same timeout claimed
again later, once due, is applied. A refused timeout loses nothing: its claimer armed the game again before
sending it (``workers/jobs/clock.claim_game``), and a game that moved on is claimed at its new position.
"""

from __future__ import annotations

from collections import OrderedDict

from events import codec, keys
from events.clocks import SeatClocks, seat_clocks
from events.command_ids import parse_timeout_id
from events.envelope import InboxMessage
from events.errors import PoisonMessage
from events.store import EventStore, LoadedGame
from workers.jobs.clock_due import KEPT_GAMES, TournamentClocks


class TimeoutRefused(PoisonMessage):
    """A clock's timeout the game's log does not justify where it would be applied: dropped, not recorded."""


class TimeoutGuard:
    """Refuses the clock's timeouts the game's log does not justify at the position they are folded at."""

    def __init__(self, store: EventStore) -> None:
        self.store = store
        self.clocks = TournamentClocks(store.redis)
        """The limits verify holds a timeout to: a tournament's clock. A table's clock is not recorded in the
        log, and verify checks only the order of its times (``services/audit/timeouts.py``), as here."""
        self._seats: OrderedDict[str, tuple[SeatClocks, str]] = OrderedDict()
        """Game id -> its seats' clocks read up to a position, and that position's chain hash (a timeout
        reads only the events after it; the hash tells whether the log still holds that history)."""

    def refusal(self, message: InboxMessage, loaded: LoadedGame, ts_ms: int) -> str | None:
        """Why the timeout ``message`` may not be applied to ``loaded`` with its events dated ``ts_ms``;
        ``None`` to let the rules decide it (any command that is not the clock's timeout, too)."""
        parsed = parse_timeout_id(message.command_id) if message.origin == "clock" else None
        if parsed is None:
            return None
        at, seat, _ = parsed
        if at != loaded.seq:
            return (
                f"timeout claimed at seq {at}; the game is at {loaded.seq}, where its seat's time runs "
                "from the last event"
            )
        seats = self._read_on(message.game_id, loaded)
        if seats is None:
            return f"the game's log does not hold seq {loaded.seq} as decided on (hash {loaded.hash[:12]})"
        elapsed = ts_ms - seats.last_ts_ms
        clock = self.clocks(message.game_id)
        if elapsed < 0 or (clock is not None and not clock.out_of_time(seats, seat, elapsed)):
            return f"seat {seat} had been to act {elapsed} ms at seq {at}, within its clock ({clock})"
        return None

    def _read_on(self, game_id: str, loaded: LoadedGame) -> SeatClocks | None:
        """The seats' clocks up to ``loaded``'s position from the log (the events after the last position
        read, when the log still holds that history; else all), or ``None`` when the log does not hold the
        very position ``loaded`` is at."""
        known = self._seats.pop(game_id, None)
        clocks = self._read(game_id, loaded, known) if known is not None else None
        if clocks is None:
            clocks = self._read(game_id, loaded, None)
        if clocks is None:
            return None
        self._seats[game_id] = (clocks, loaded.hash)
        if len(self._seats) > KEPT_GAMES:
            self._seats.popitem(last=False)
        return clocks

    def _read(
        self, game_id: str, loaded: LoadedGame, known: tuple[SeatClocks, str] | None
    ) -> SeatClocks | None:
        start, last_hash = (known[0].seq, known[1]) if known is not None else (0, "")
        if start > loaded.seq:
            return None
        entries = self.store.redis.xrange(keys.events(game_id), min=f"{start + 1}-0", max=f"{loaded.seq}-0")
        envelopes = [codec.decode_envelope(fields[b"e"]) for _, fields in entries]
        if envelopes and known is not None and envelopes[0].prev_hash != last_hash:
            return None  # the events before them are not those read then (Redis lost and replaced them)
        if (envelopes[-1].hash if envelopes else last_hash) != loaded.hash:
            return None
        # The chain ends at the very position decided on, so the clocks read on to it (in place: the read
        # can no longer fail half-way).
        return seat_clocks(envelopes, SeatClocks() if known is None else known[0])
