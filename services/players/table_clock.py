"""A table's game its players left ends (issue 43, finding 9: games made by tables lived for ever, and now
they hold their creator's quota while they live).

Tables' games have no clock while they are played: a turn may take days. But a seat that has been to act
``TableSettings.idle_hours`` without moving is out of time, and the clock (``workers/jobs/clock.py``) plays
its default move, as it does a tournament's, under its own ids and origin, which ``verify`` checks; the seat
is then forfeited (``Clock.forfeit``): its later turns are played at once. A game everyone left thus runs to
its end by default moves; one whose opponent left is finished by the one who stayed. With a stand-in
(``TableSettings.stand_in``, ``strong`` say) the later turns of a forfeited seat are the stand-in bot's moves
instead, rq jobs like any bot turn (origin ``bot``, the bots' ids; ``verify`` re-decides them like any
command): the one who stayed plays on against a real opponent. The first timeout, which forfeits the seat,
is always the clock's default move.

``serve``'s reconciler runs ``expire_idle`` at most once a minute (a Redis key says when it last ran, so
two serves on one Redis share it): one pipelined read of each live table game's status and last event, and
a claim for the idle ones and the ones with a forfeited seat.
"""

from __future__ import annotations

from typing import Any

import structlog

from events import codec, keys
from events.clocks import Clock
from services.bootstrap import Services, require_rq
from workers.jobs import table_clocks
from workers.jobs.bots import bot_names
from workers.jobs.clock import claim_timeouts, read_clocks
from workers.jobs.schedule import make_scheduler

log = structlog.get_logger("tables")

LIVE = keys.TABLES_LIVE
"""Every live game a table made (game id by when it was claimed); written with the table's ``started``."""
FORFEITED = table_clocks.FORFEITED
"""Table games with a seat out of time: their later turns are claimed at every pass, not after hours."""
PASS_KEY = keys.TABLES_IDLE_PASS
PASS_EVERY_MS = 60_000


def expire_idle(
    services: Services,
    idle_hours: int,
    now: int,
    every_ms: int = PASS_EVERY_MS,
    stand_in: str = "",
    url: str | None = None,
) -> int:
    """Claim the default move of every seat of a table's game out of time at ``now``; returns how many
    were sent (stand-in turns enqueued included). Does nothing if a pass ran within ``every_ms``. With
    ``stand_in`` and the service's ``url``, a forfeited seat to act gets that bot's turn instead."""
    client = services.redis
    if not client.set(PASS_KEY, now, nx=True, px=every_ms):
        return 0
    ids = [raw.decode() for raw in client.zrange(LIVE, 0, -1)]
    if not ids:
        return 0
    idle_ms = idle_hours * 3_600_000
    live, due = _read(client, ids, now - idle_ms)
    forfeited = {raw.decode() for raw in client.smembers(FORFEITED)} & live
    due |= forfeited
    gone = [g for g in ids if g not in live]
    if gone:
        client.zrem(LIVE, *gone)
        client.srem(FORFEITED, *gone)
    clocked = {g for g in due if table_clocks.read(client, g) is not None}
    stood_in = _stand_in(services, url, stand_in, sorted(due & forfeited)) if url else set()
    due -= stood_in | clocked  # a table's own clock times its game out: the fold worker's hook and watcher
    if not due:
        return len(stood_in)
    clock = Clock(move_ms=idle_ms, forfeit=True)
    claimed = claim_timeouts(services.store, services.bus, sorted(due), now_ms=now, clock=clock)
    if claimed:
        client.sadd(FORFEITED, *{game_id for game_id, _, _ in claimed})
        log.info("table_games_timed_out", moves=len(claimed), games=len({g for g, _, _ in claimed}))
    return len(claimed) + len(stood_in)


def _stand_in(services: Services, url: str, bot: str, game_ids: list[str]) -> set[str]:
    """Enqueue the stand-in ``bot``'s turn in each game whose forfeited seats (timed out before, by the
    log) are to act; returns the games it went to (the others are left to the clock's claim: a game without
    that bot, or whose seats to act were never timed out)."""
    scheduler = make_scheduler(
        require_rq(services), url, 0.0, services.bus.partitions, services.settings.game_plugins
    )
    taken: set[str] = set()
    for game_id in game_ids:
        left = _left(services, bot, game_id)
        if left:
            scheduler.ensure(game_id, services.store.load(game_id), stand_ins=left)
            taken.add(game_id)
    if taken:
        log.info("table_seats_stood_in", bot=bot or "table's", games=len(taken))
    return taken


def _left(services: Services, bot: str, game_id: str) -> dict[str, str]:
    """The seats to act the stand-in plays in ``game_id`` (seat as text -> bot): resigned ones, those a
    table clock's ``bot`` timed out until their player moves again, and an idle-timed-out one for good."""
    chosen = table_clocks.read(services.redis, game_id)
    loaded = services.store.load(game_id)
    clocks = read_clocks(services.store, game_id)
    clocks.resigned |= table_clocks.resigned(services.redis, game_id)  # older games' record
    if chosen is None:  # no table clock: the idle limit's timeouts forfeit for good (with a stand-in set)
        clocks.away = {s for s, n in clocks.timeouts.items() if n > 0} if bot else set()
    seats = table_clocks.stand_in_seats(loaded, clocks, chosen.to_clock() if chosen else Clock(stood_in=True))
    name = bot or table_clocks.DEFAULT_STAND_IN
    if name not in bot_names(loaded.game):
        return {}
    return {seat: name for seat in seats}


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
