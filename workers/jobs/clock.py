"""Move clocks: a seat that has not moved within the limit plays its default move (``domain/clock.py``).

The clock is a service, never the domain: ``claim_timeouts`` reads when each game last moved (the time
on its last event) and, for a game past the limit, submits the default move of every seat to act through
the bus like any player's command, as the clock (origin ``clock``: ids of its own, which no player can
take) with the command id ``timeout-<seq>-<seat>-<tag>`` (keyed with the game's secret seed): the game
decides it, the log keeps it, ``verify`` re-decides it, and a second claim of the same timeout is a
duplicate.
``serve`` and ``harbormaster tournament run`` call it with each tournament's reconcile pass. A tournament
may also limit each seat's total thinking time per game, and forfeit a timed-out seat (``Clock``).
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable

import msgspec
import structlog

from domain.clock import default_move
from events import codec, keys
from events.bus import CommandBus
from events.envelope import Envelope
from events.errors import UnknownGame
from events.store import EventStore

log = structlog.get_logger("clock")


def last_move_ms(store: EventStore, game_id: str) -> int | None:
    """When the game's last event was appended (ms), or ``None`` for an unknown game."""
    entries = store.redis.xrevrange(keys.events(game_id), count=1)
    if not entries:
        return None
    return int(codec.decode_envelope(entries[0][1][b"e"]).ts_ms)


def timeout_command_id(seed: bytes, seq: int, seat: int) -> str:
    """The id of the timeout of ``seat`` at ``seq``: the same for every claim (so it is applied once), and
    keyed with the game's secret seed, so that nobody can know it in advance (as bots' ids are)."""
    tag = hmac.new(seed, b"timeout-command-id:%d:%d" % (seq, seat), hashlib.sha256).hexdigest()[:20]
    return f"timeout-{seq}-{seat}-{tag}"


class SeatClocks(msgspec.Struct, kw_only=True):
    """What the log says of each seat's clock: thinking time used (ms) and timeouts suffered."""

    used_ms: dict[int, int] = msgspec.field(default_factory=dict)
    timeouts: dict[int, int] = msgspec.field(default_factory=dict)
    moved: set[int] = msgspec.field(default_factory=set)
    """Seats that made a move of their own (a command not the clock's): the others never came."""
    last_ts_ms: int = 0


def seat_clocks(envelopes: Iterable[Envelope]) -> SeatClocks:
    """Each seat's clock from the game's events alone: a command's first event charges its seat the time
    since the event before it (what the seat spent deciding, in games where one seat acts at a time); a
    command of the clock (id ``timeout-…``) counts as a timeout of its seat."""
    clocks, previous = SeatClocks(), ""
    for envelope in envelopes:
        first_of_command = envelope.command_id != previous
        previous = envelope.command_id
        if envelope.seat is not None and first_of_command and clocks.last_ts_ms:
            seat = envelope.seat
            clocks.used_ms[seat] = clocks.used_ms.get(seat, 0) + envelope.ts_ms - clocks.last_ts_ms
            if envelope.command_id.startswith("timeout-"):
                clocks.timeouts[seat] = clocks.timeouts.get(seat, 0) + 1
        if envelope.seat is not None and first_of_command and not envelope.command_id.startswith("timeout-"):
            clocks.moved.add(envelope.seat)
        clocks.last_ts_ms = envelope.ts_ms
    return clocks


def read_clocks(store: EventStore, game_id: str) -> SeatClocks:
    entries = store.redis.xrange(keys.events(game_id))
    return seat_clocks(codec.decode_envelope(fields[b"e"]) for _, fields in entries)


class Clock(msgspec.Struct, frozen=True, kw_only=True):
    """A tournament's clock rules (``None``, or 0 for the total, turns a limit off)."""

    move_ms: int | None = None
    total_ms: int = 0
    forfeit: bool = False
    """A seat timed out once plays its default moves at once from then on."""
    no_show_ms: int | None = None
    """A seat that never moved by itself and has been to act this long in all: a no-show, whose moves
    are the clock's, at once (its time used only grows, so every later turn is at once too)."""

    def out_of_time(self, clocks: SeatClocks, seat: int, elapsed_ms: int) -> bool:
        """Whether ``seat``, to act for ``elapsed_ms`` now, has run out of time."""
        if self.move_ms is not None and elapsed_ms >= self.move_ms:
            return True
        if self.total_ms and clocks.used_ms.get(seat, 0) + elapsed_ms >= self.total_ms:
            return True
        never_moved = seat not in clocks.moved
        if (
            self.no_show_ms is not None
            and never_moved
            and clocks.used_ms.get(seat, 0) + elapsed_ms >= self.no_show_ms
        ):
            return True
        return self.forfeit and clocks.timeouts.get(seat, 0) > 0


def claim_timeouts(
    store: EventStore,
    bus: CommandBus,
    game_ids: Iterable[str],
    limit_ms: int | None = None,
    now_ms: int = 0,
    clock: Clock | None = None,
) -> list[tuple[str, int, str]]:
    """Submit the default move of each seat to act that has run out of time (``limit_ms`` alone: silent
    that long; ``clock``: the move limit, the total per seat, forfeited seats); returns ``(game id, seat,
    command id)`` of each one submitted."""
    rules = clock or Clock(move_ms=limit_ms)
    claimed: list[tuple[str, int, str]] = []
    for game_id in game_ids:
        last = last_move_ms(store, game_id)
        if last is None:
            continue
        elapsed = now_ms - last
        only_moves = not rules.total_ms and not rules.forfeit and rules.no_show_ms is None
        if only_moves and (rules.move_ms is None or elapsed < rules.move_ms):
            continue  # the common case costs one read, not a load of the game
        clocks = SeatClocks() if only_moves else read_clocks(store, game_id)
        try:
            loaded = store.load(game_id)
        except UnknownGame:
            continue
        game, state = loaded.game, loaded.state
        if game.outcome(state) is not None:
            continue
        for seat in sorted(game.to_act(state)):
            command = default_move(game, state, seat) if rules.out_of_time(clocks, seat, elapsed) else None
            if command is None:
                continue
            command_id = timeout_command_id(loaded.meta.seed, loaded.seq, seat)
            bus.submit(game_id, seat, codec.encode_command(command), command_id, origin="clock")
            claimed.append((game_id, seat, command_id))
    if claimed:
        log.info("timeouts_claimed", count=len(claimed), first=claimed[0])
    return claimed
