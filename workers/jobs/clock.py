"""Move clocks: a seat that has not moved within the limit plays its default move (``domain/clock.py``).

The clock is a service, never the domain: ``claim_timeouts`` reads when each game last moved (the time
on its last event) and, for a game past the limit, submits the default move of every seat to act through
the bus like any player's command, as the clock (origin ``clock``: ids of its own, which no player can
take) with the command id ``timeout-<seq>-<seat>-<tag>`` (keyed with the game's secret seed): the game
decides it, the log keeps it, ``verify`` re-decides it, and a second claim of the same timeout is a
duplicate.
``serve`` and ``harbormaster tournament run`` call it with each tournament's reconcile pass. A tournament
may also limit each seat's total thinking time per game, and forfeit a timed-out seat (``Clock``). What the
log says of the clocks, the rules and the ids are pure (``events/clocks.py``, ``events/command_ids.py``), so
that the offline verifier checks each timeout with the very arithmetic that claimed it.
"""

from __future__ import annotations

from collections.abc import Iterable

import structlog

from domain.clock import default_move
from events import codec, keys
from events.bus import CommandBus
from events.clocks import Clock, SeatClocks, seat_clocks
from events.command_ids import timeout_command_id
from events.errors import UnknownGame
from events.store import EventStore

log = structlog.get_logger("clock")

__all__ = ["Clock", "SeatClocks", "claim_timeouts", "last_move_ms", "read_clocks", "seat_clocks",
           "timeout_command_id"]  # fmt: skip


def last_move_ms(store: EventStore, game_id: str) -> int | None:
    """When the game's last event was appended (ms), or ``None`` for an unknown game."""
    entries = store.redis.xrevrange(keys.events(game_id), count=1)
    if not entries:
        return None
    return int(codec.decode_envelope(entries[0][1][b"e"]).ts_ms)


def read_clocks(store: EventStore, game_id: str) -> SeatClocks:
    entries = store.redis.xrange(keys.events(game_id))
    return seat_clocks(codec.decode_envelope(fields[b"e"]) for _, fields in entries)


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
