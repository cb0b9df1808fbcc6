"""Resigning a table's game, taking a seat back from the stand-in bot, and voting to end (issue 44).

Each is a command of the game's own log (``domain/seat_control.py``), decided by the fold worker like any
move and kept in the chain, the export and the archive, so that a resignation is provable from the export
alone (``verify`` decides it again). None of the three games' rules ends a game for one player's leaving,
so a resigned seat passes to the stand-in bot (``workers/jobs/table_clocks.DEFAULT_STAND_IN``) for the rest
of the game: the fold worker's clock hook reads ``SeatResigned`` from the log (``events/clocks.py``) and
enqueues the stand-in's turn each time the seat is to act; the rating places it last, as a loss
(``workers/jobs/rating_inputs.abandoned_and_end``). Games resigned before the event kept the seat in a Redis
set (``table_clocks.resigned_key``), which is still read for them.

The HTTP calls wait for the command's result (a few seconds at most), so that the answer says what the log
says.
"""

from __future__ import annotations

import time
import uuid

import structlog

from domain.seat_control import Resign, TakeSeatBack, VoteToEnd, control_of
from events import codec
from events.envelope import CommandRecord
from events.store import LoadedGame
from services.bootstrap import Services
from services.players.tables import TableError
from workers.jobs import table_clocks

log = structlog.get_logger("tables")

WAIT_S = 10.0
"""How long a call waits for its command's result before answering 202-like (``TableError`` 503)."""


def resign(services: Services, url: str, game_id: str, seat: int) -> bool:
    """Resign ``seat`` of the table's game ``game_id``; True if it was not resigned before. ``TableError``
    409 for a game no table made, a finished one, or a seat a bot plays. Synchronous (a thread of the
    gateway's). ``url`` is kept for the callers: the stand-in's turn is the fold worker's hook's now."""
    loaded = _table_game(services, game_id, seat)
    control = control_of(loaded.state)
    if seat in control.resigned or seat in table_clocks.resigned(services.redis, game_id):
        return False
    _decided(services, game_id, seat, codec.encode_command(Resign()), "resign")
    # serve's pass stands in too, should the hook's job be lost
    services.redis.sadd(table_clocks.FORFEITED, game_id)
    log.info("table_seat_resigned", game_id=game_id, seat=seat)
    return True


def take_back(services: Services, game_id: str, seat: int) -> None:
    """The seat's player takes it back from the stand-in bot the clock handed it to."""
    _table_game(services, game_id, seat)
    _decided(services, game_id, seat, codec.encode_command(TakeSeatBack()), "take-back")
    log.info("table_seat_taken_back", game_id=game_id, seat=seat)


def vote(services: Services, game_id: str, seat: int, end: bool) -> None:
    """The seat's vote in the open vote to end the game."""
    _table_game(services, game_id, seat)
    _decided(services, game_id, seat, codec.encode_command(VoteToEnd(end=end)), "vote")
    log.info("table_end_vote", game_id=game_id, seat=seat, end=end)


def _table_game(services: Services, game_id: str, seat: int) -> LoadedGame:
    if services.redis.get(table_clocks.clock_key(game_id)) is None:
        raise TableError(409, "not_a_table_game", "only a game a table made has seat commands")
    loaded = services.store.load(game_id)
    if loaded.state is None or loaded.game.outcome(loaded.state) is not None:
        raise TableError(409, "game_over", "this game is over")
    if str(seat) in loaded.meta.bots:
        raise TableError(409, "bot_seat", "a bot plays this seat")
    return loaded


def _decided(services: Services, game_id: str, seat: int, command: bytes, what: str) -> CommandRecord:
    """Submit the seat's command and wait for its result; a refusal of the rules is ``TableError`` 409."""
    command_id = f"{what}-{uuid.uuid4().hex[:16]}"
    services.bus.submit(game_id, seat, command, command_id)
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        record = services.store.result(game_id, command_id, seat)
        if record is not None:
            if record.status == "rejected":
                raise TableError(409, record.code.replace(".", "_"), record.message)
            return record
        time.sleep(0.05)
    raise TableError(503, "not_decided_yet", "the command is queued but not decided yet; look again soon")
