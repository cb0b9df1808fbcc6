"""Resigning a table's game (issue 44: "nobody can resign or leave, so dead games pile up in My games").

None of the three games' rules ends a game for one player's leaving, so a resigned seat passes to the
stand-in bot (``workers/jobs/table_clocks.DEFAULT_STAND_IN``) for the rest of the game and the others play
on. The seat is written to the game's ``resigned`` set (``table_clocks.resigned_key``) once; from then on
the fold worker's clock hook enqueues the stand-in's turn each time the seat is to act, the clock never
times it out, and the rating places it last, as a seat the clock played (a loss:
``workers/jobs/rating_inputs.abandoned_and_end``). Resigning is final: the player's own moves are still
taken (the stand-in and the player alike play legal moves), but the seat stays the bot's.
"""

from __future__ import annotations

import structlog

from services.bootstrap import Services, require_rq
from services.players.tables import TableError
from workers.jobs import table_clocks
from workers.jobs.clock import read_clocks
from workers.jobs.schedule import make_scheduler

log = structlog.get_logger("tables")


def resign(services: Services, url: str, game_id: str, seat: int) -> bool:
    """Resign ``seat`` of the table's game ``game_id``; True if it was not resigned before. ``TableError``
    409 for a game no table made, a finished one, or a seat a bot plays. Synchronous (a thread of the
    gateway's): it loads the game to enqueue the stand-in's turn if the seat is to act now."""
    client = services.redis
    if client.get(table_clocks.clock_key(game_id)) is None:
        raise TableError(409, "not_a_table_game", "only a game a table made can be resigned")
    loaded = services.store.load(game_id)
    if loaded.state is None or loaded.game.outcome(loaded.state) is not None:
        raise TableError(409, "game_over", "this game is over")
    if str(seat) in loaded.meta.bots:
        raise TableError(409, "bot_seat", "a bot plays this seat")
    added = bool(client.sadd(table_clocks.resigned_key(game_id), seat))
    client.sadd(table_clocks.FORFEITED, game_id)  # serve's pass stands in too, should the hook's job be lost
    clocks = read_clocks(services.store, game_id)
    clocks.resigned = table_clocks.resigned(client, game_id)
    table = table_clocks.read(client, game_id)
    left = table_clocks.stand_in_seats(loaded, clocks, table.to_clock() if table is not None else None)
    if left:  # the seat is to act now: no later move would wake the hook
        scheduler = make_scheduler(
            require_rq(services), url, 0.0, services.bus.partitions, services.settings.game_plugins
        )
        scheduler.ensure(game_id, loaded, stand_ins=left)
    log.info("table_seat_resigned", game_id=game_id, seat=seat, first=added, stood_in=bool(left))
    return added
