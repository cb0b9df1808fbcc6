"""Move clocks: a seat that has not moved within the limit plays its default move (``domain/clock.py``).

The clock is a service, never the domain: ``claim_timeouts`` reads when each game last moved (the time
on its last event) and, for a game past the limit, submits the default move of every seat to act through
the bus like any player's command, as the clock (origin ``clock``: ids of its own, which no player can
take) with the command id ``timeout-<seq>-<seat>-<tag>`` (keyed with the game's secret seed): the game
decides it, the log keeps it, ``verify`` re-decides it, and a second claim of the same timeout is a
duplicate.
``serve`` and ``harbormaster tournament run`` call it with each tournament's reconcile pass.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable

import structlog

from domain.clock import default_move
from events import codec, keys
from events.bus import CommandBus
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


def claim_timeouts(
    store: EventStore, bus: CommandBus, game_ids: Iterable[str], limit_ms: int, now_ms: int
) -> list[tuple[str, int, str]]:
    """Submit the default move of each seat to act in each game silent for ``limit_ms`` or more; returns
    ``(game id, seat, command id)`` of each one submitted."""
    claimed: list[tuple[str, int, str]] = []
    for game_id in game_ids:
        last = last_move_ms(store, game_id)
        if last is None or now_ms - last < limit_ms:
            continue
        try:
            loaded = store.load(game_id)
        except UnknownGame:
            continue
        game, state = loaded.game, loaded.state
        if game.outcome(state) is not None:
            continue
        for seat in sorted(game.to_act(state)):
            command = default_move(game, state, seat)
            if command is None:
                continue
            command_id = timeout_command_id(loaded.meta.seed, loaded.seq, seat)
            bus.submit(game_id, seat, codec.encode_command(command), command_id, origin="clock")
            claimed.append((game_id, seat, command_id))
    if claimed:
        log.info("timeouts_claimed", count=len(claimed), first=claimed[0])
    return claimed
