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
from typing import Any

import structlog

from domain.clock import default_move
from domain.seat_control import TimeOutSeat
from events import codec, keys
from events.bus import CommandBus
from events.clocks import Clock, SeatClocks, seat_clocks
from events.command_ids import parse_timeout_id, seat_clock_id, timeout_command_id
from events.errors import UnknownGame
from events.store import EventStore, LoadedGame
from workers.jobs.table_clocks import FORFEITED, resigned_key

log = structlog.get_logger("clock")

DUE = keys.CLOCK_DUE
"""Live clocked games by when their next seat runs out of time (ms): the clock watcher claims each at that
moment (``workers/jobs/clock_due.py``)."""


CLAIM_AGAIN_MS = 2_000
"""A game whose timeouts were claimed is armed again this much later, before they are sent: the hook of the
applied move arms its next position (replacing it), so it fires only if that move or hook was lost."""


def arm(client: Any, game_id: str, at_ms: int) -> None:
    """``game_id``'s next timeout is due at ``at_ms`` (replacing what its last position said)."""
    client.zadd(DUE, {game_id: at_ms})


def disarm(client: Any, game_id: str) -> None:
    client.zrem(DUE, game_id)


__all__ = ["Clock", "SeatClocks", "claim_timeouts", "last_move_ms", "read_clocks", "seat_clocks",
           "timeout_command_id"]  # fmt: skip


def last_move_ms(store: EventStore, game_id: str) -> int | None:
    """When the game's last event was appended (ms), or ``None`` for an unknown game."""
    entries = store.redis.xrevrange(keys.events(game_id), count=1)
    if not entries:
        return None
    return int(codec.decode_envelope(entries[0][1][b"e"]).ts_ms)


def read_clocks(store: EventStore, game_id: str, upto: int | None = None) -> SeatClocks:
    """The seats' clocks from the game's log, up to seq ``upto`` (``None``: all of it)."""
    entries = store.redis.xrange(keys.events(game_id), max="+" if upto is None else f"{upto}-0")
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
    command id)`` of each one submitted. A game with nobody out of time yet is armed for the moment its
    next seat will be (``clock_due``), so that it need not wait for this pass to come round again."""
    rules = clock or Clock(move_ms=limit_ms)
    claimed: list[tuple[str, int, str]] = []
    for game_id in game_ids:
        last = last_move_ms(store, game_id)
        if last is None:
            continue
        elapsed = now_ms - last
        # a stood-in seat is known from the log only: that case reads it too
        only_moves = (
            not rules.total_ms and not rules.forfeit and rules.no_show_ms is None and not rules.stood_in
        )
        if only_moves and (rules.move_ms is None or elapsed < rules.move_ms):
            if rules.move_ms is not None:  # the common case costs one read, not a load of the game
                arm(store.redis, game_id, last + rules.move_ms)
            continue
        try:
            loaded = store.load(game_id)
        except UnknownGame:
            continue
        # Read after the load and up to its very position: the game may have moved on since ``last`` was
        # read, and the new seat to act held to that older time was claimed early (issue 42).
        clocks = read_clocks(store, game_id, loaded.seq)
        if clocks.seq != loaded.seq:
            continue  # the log no longer holds the position loaded (Redis lost its end): nothing to go by
        if (
            not only_moves
        ):  # a resigned seat is its stand-in's to play, never the clock's (older games: a set)
            clocks.resigned |= {int(r) for r in store.redis.smembers(resigned_key(game_id)) if r.isdigit()}
        claimed.extend(claim_game(store, bus, loaded, clocks, rules, clocks.last_ts_ms, now_ms))
    if claimed:
        log.info("timeouts_claimed", count=len(claimed), first=claimed[0])
    return claimed


def claim_game(
    store: EventStore,
    bus: CommandBus,
    loaded: LoadedGame,
    clocks: SeatClocks,
    rules: Clock,
    last_ms: int,
    now_ms: int,
) -> list[tuple[str, int, str]]:
    """One game at its position (``clocks``: its seats' clocks read up to there; ``last_ms``: the time of
    its last event), at ``now_ms``: the default move of each seat to act that is out of time; with none,
    the game is armed for the moment the first will be (disarmed once over, or with no seat limited)."""
    game, state, game_id = loaded.game, loaded.state, loaded.meta.header.game_id
    if state is None or game.outcome(state) is not None:
        disarm(store.redis, game_id)
        return []
    elapsed = now_ms - last_ms
    claimed: list[tuple[str, int, str]] = []
    dues: list[int] = []
    for seat in sorted(game.to_act(state)):
        if not rules.out_of_time(clocks, seat, elapsed):
            due = rules.due_after_ms(clocks, seat)
            dues.extend([] if due is None else [due])
            continue
        command = default_move(game, state, seat)
        if command is None:
            continue
        if not claimed:  # before the first is sent, so that the applied move's own hook arms after it
            arm(store.redis, game_id, now_ms + CLAIM_AGAIN_MS)
        command_id = timeout_command_id(loaded.meta.seed, loaded.seq, seat)
        bus.submit(game_id, seat, codec.encode_command(command), command_id, origin="clock")
        claimed.append((game_id, seat, command_id))
    if claimed and rules.stood_in:  # a table's stand-in bot plays the seat from now on (its player away)
        store.redis.sadd(FORFEITED, game_id)
    if claimed:
        return claimed  # the fold worker's hook arms the position the moves lead to
    if dues:
        arm(store.redis, game_id, last_ms + min(dues))
    else:
        disarm(store.redis, game_id)
    return claimed


def seat_after_timeout(
    loaded: LoadedGame, clocks: SeatClocks, then: str
) -> tuple[int, TimeOutSeat, str] | None:
    """What the clock does to a seat behind its applied timeout (the last command read into ``clocks``), as an
    event of the log: ``(seat, TimeOutSeat, its id)``, or ``None``: the last command was no timeout, the
    clock does nothing more (``then`` "": a tournament's), or the seat is absent already (a dropped seat's
    later timeouts). The voters of ``vote`` are the seats of accounts present: no bot votes."""
    parsed = parse_timeout_id(clocks.last_command_id)
    control = getattr(loaded.state, "seat_control", None)  # a game without seat events (a test plugin)
    if parsed is None or then not in ("bot", "drop", "vote") or control is None:
        return None
    at, seat, _ = parsed
    if seat in control.absent():
        return None
    voters: tuple[int, ...] = ()
    if then == "vote":
        gone = {*control.absent(), seat}
        voters = tuple(
            s for s in range(loaded.meta.header.seats) if s not in gone and str(s) not in loaded.meta.bots
        )
    command = TimeOutSeat(then=then, voters=voters)  # type: ignore[arg-type]  # one of the three, above
    return seat, command, seat_clock_id(at, seat)
