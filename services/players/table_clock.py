"""A table's game its players left ends (issue 43, finding 9: games made by tables lived for ever, and now
they hold their creator's quota while they live).

Tables' games have no clock while they are played: a turn may take days. But a seat that has been to act
``TableSettings.idle_hours`` without moving is out of time, and the clock (``workers/jobs/clock.py``) plays
its default move, as it does a tournament's, under its own ids and origin, which ``verify`` checks; the seat
is then forfeited (``Clock.forfeit``): its later turns are played at once. A game everyone left thus runs to
its end by default moves; one whose opponent left is finished by the one who stayed.

``serve``'s reconciler runs ``expire_idle`` at most once a minute (a Redis key says when it last ran, so
two serves on one Redis share it): one pipelined read of each live table game's status and last event, and
a claim for the idle ones and the ones with a forfeited seat.
"""

from __future__ import annotations

from typing import Any

import structlog

from events import codec, keys
from events.clocks import Clock
from services.bootstrap import Services
from workers.jobs.clock import claim_timeouts

log = structlog.get_logger("tables")

LIVE = "hm:tables:live"
"""Every live game a table made (game id by when it was claimed); written with the table's ``started``."""
FORFEITED = "hm:tables:forfeited"
"""Table games with a seat out of time: their later turns are claimed at every pass, not after hours."""
PASS_KEY = "hm:tables:idle_pass"
PASS_EVERY_MS = 60_000


def expire_idle(services: Services, idle_hours: int, now: int, every_ms: int = PASS_EVERY_MS) -> int:
    """Claim the default move of every seat of a table's game out of time at ``now``; returns how many
    were sent. Does nothing if a pass ran within ``every_ms``."""
    client = services.redis
    if not client.set(PASS_KEY, now, nx=True, px=every_ms):
        return 0
    ids = [raw.decode() for raw in client.zrange(LIVE, 0, -1)]
    if not ids:
        return 0
    idle_ms = idle_hours * 3_600_000
    live, due = _read(client, ids, now - idle_ms)
    due |= {raw.decode() for raw in client.smembers(FORFEITED)} & live
    gone = [g for g in ids if g not in live]
    if gone:
        client.zrem(LIVE, *gone)
        client.srem(FORFEITED, *gone)
    if not due:
        return 0
    clock = Clock(move_ms=idle_ms, forfeit=True)
    claimed = claim_timeouts(services.store, services.bus, sorted(due), now_ms=now, clock=clock)
    if claimed:
        client.sadd(FORFEITED, *{game_id for game_id, _, _ in claimed})
        log.info("table_games_timed_out", moves=len(claimed), games=len({g for g, _, _ in claimed}))
    return len(claimed)


def _read(client: Any, ids: list[str], idle_before: int) -> tuple[set[str], set[str]]:
    """The games still live, and those whose last event is older than ``idle_before`` (ms)."""
    pipe = client.pipeline(transaction=False)
    for game_id in ids:
        pipe.hget(keys.meta(game_id), "status")
        pipe.xrevrange(keys.events(game_id), count=1)
    replies = pipe.execute()
    live: set[str] = set()
    idle: set[str] = set()
    for game_id, status, last in zip(ids, replies[::2], replies[1::2], strict=True):
        if status != b"live":
            continue  # finished, or trimmed: off the list
        live.add(game_id)
        if last and codec.decode_envelope(last[0][1][b"e"]).ts_ms < idle_before:
            idle.add(game_id)
    return live, idle
