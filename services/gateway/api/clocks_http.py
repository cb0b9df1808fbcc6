"""``GET /api/games/{id}/clock``: each seat's move clock in a tournament game that has one.

The clock itself is a service (``workers/jobs/clock.py``): it plays a silent seat's default move once
the seat has been to act for the tournament's ``move_limit_s``, or has used up its ``total_limit_s``.
This endpoint tells a viewer what that service will see, so the web client can count down: the limits,
when the last move was made (the time on the game's last event, which the clock also reads), each seat's
used thinking time (``seat_clocks``, from the game's own events) and the gateway's ``now_ms`` (a client
whose own clock is off corrects by the difference). The web client fetches it after each event frame;
the frames themselves stay as they are (they are built in the compiled fan-out path).
"""

from __future__ import annotations

from collections import OrderedDict

import msgspec
from starlette.requests import Request
from starlette.responses import Response

from domain.tournament import TournamentCreated
from events import codec
from events.clocks import SeatClocks, seat_clocks
from events.ids import parse_tournament_game_id
from events.store import now_ms
from events.tournament_store import decode, tournament_key
from services.gateway.api.requests import json_response, viewed_game
from services.gateway.context import Gateway
from services.gateway.feeds.fanout import GameFeed
from workers.jobs import table_clocks
from workers.jobs.table_clocks import TableClock


class ClockLimits(msgspec.Struct, frozen=True):
    """A tournament's clock rules in milliseconds (``None``: that limit is off)."""

    move_limit_ms: int | None
    total_limit_ms: int | None
    on_timeout: str
    increment_ms: int = 0


NO_LIMITS = ClockLimits(move_limit_ms=None, total_limit_ms=None, on_timeout="default_move")


class SeatClock(msgspec.Struct, frozen=True):
    seat: int
    used_ms: int
    """Thinking time the seat has used in this game (each of its moves: from the event before it)."""
    timeouts: int
    """How many times the clock has played the seat's default move."""
    bank_ms: int | None = None
    """The seat's whole time for the game so far: the total and the increment of each move it made
    (``None``: no total); it has ``bank_ms - used_ms`` left, less the time since the last move if to act."""
    away: bool = False
    """Resigned, or timed out and not back: a table's stand-in bot plays the seat (until its player takes it
    back, if it was not resigned)."""
    bot_plays: bool = False
    """The clock handed the seat to the stand-in bot (``SeatHandedToBot``) and its player may take it back
    (``POST /api/games/{id}/take-back``)."""
    resigned: bool = False
    dropped: bool = False


class EndVote(msgspec.Struct, frozen=True, kw_only=True):
    """An open vote to end the game: about the absent ``seat``, by ``voters``; ``votes``: seat -> end?"""

    seat: int
    voters: list[int]
    votes: dict[int, bool]


class GameClock(msgspec.Struct, frozen=True, kw_only=True):
    """Each seat's clock as of event ``seq``. A seat to act has, in ms, ``move_limit_ms - (now_ms -
    last_move_ms)`` for this move and ``total_limit_ms - used_ms - (now_ms - last_move_ms)`` in its bank;
    at 0 the clock plays its default move (within a few seconds: the clock runs every few seconds).
    ``running`` is false for a game with no clock, a finished game, and a spectator who sees it late."""

    game_id: str
    seq: int
    move_limit_ms: int | None
    total_limit_ms: int | None
    on_timeout: str
    """A tournament's ``default_move`` or ``forfeit``; a table's ``bot`` or ``drop``."""
    increment_ms: int = 0
    running: bool
    to_act: list[int]
    last_move_ms: int | None
    """When the seats to act began thinking: the last event's time, a vote's events aside (a vote cast while
    a seat thinks does not restart its clock: ``events/clocks.VOTE_EVENT_TYPES``)."""
    now_ms: int
    seats: list[SeatClock]
    vote: EndVote | None = None


_LIMITS: dict[str, ClockLimits] = {}
"""Each tournament's clock rules: set when it is created and never changed, so kept for good."""
_USED: OrderedDict[tuple[str, int, str], SeatClocks] = OrderedDict()
"""``seat_clocks`` of recent (game, seq, hash): every viewer of a game asks after each of its events."""
_USED_KEPT = 512


async def tournament_limits(gateway: Gateway, tournament_id: str) -> ClockLimits:
    """The clock rules in the tournament's first event (``TournamentCreated`` holds its settings)."""
    known = _LIMITS.get(tournament_id)
    if known is not None:
        return known
    entries = await gateway.redis.xrange(tournament_key(tournament_id, "events"), count=1)
    if not entries:
        return NO_LIMITS  # not kept: a tournament of that id may still be created
    created = decode(codec.decode_envelope(entries[0][1][b"e"]))
    if not isinstance(created, TournamentCreated):
        return NO_LIMITS
    settings = created.settings
    limits = ClockLimits(
        move_limit_ms=round(settings.move_limit_s * 1000) if settings.move_limit_s > 0 else None,
        total_limit_ms=round(settings.total_limit_s * 1000) if settings.total_limit_s > 0 else None,
        on_timeout=settings.on_timeout,
    )
    _LIMITS[tournament_id] = limits
    return limits


def used_time(feed: GameFeed, seq: int) -> SeatClocks:
    """Each seat's used time and timeouts after event ``seq`` (a read of the feed's events, kept)."""
    key = (feed.game_id, seq, feed.entries[seq - 1].envelope.hash)  # the hash: a rewound feed is another game
    known = _USED.get(key)
    if known is not None:
        _USED.move_to_end(key)
        return known
    clocks = seat_clocks(entry.envelope for entry in feed.entries[:seq])
    _USED[key] = clocks
    if len(_USED) > _USED_KEPT:
        _USED.popitem(last=False)
    return clocks


async def game_clock(request: Request) -> Response:
    """``GET /api/games/{id}/clock``: the limits, the last move's time, each seat's used time, and now."""
    gateway, feed, seat = await viewed_game(request)
    parsed = parse_tournament_game_id(feed.game_id) if feed.meta.tournament else None
    resigned: set[int] = set()
    if parsed is not None:
        limits = await tournament_limits(gateway, parsed[0])
    else:
        raw = await gateway.redis.get(table_clocks.clock_key(feed.game_id))
        limits = table_limits(table_clocks.decode(raw))
        resigned = {int(r) for r in await gateway.redis.smembers(table_clocks.resigned_key(feed.game_id))}
    seq = feed.visible_seq(seat)
    timed = limits.move_limit_ms is not None or limits.total_limit_ms is not None
    if not timed or seq < 1:
        return json_response(_clock(feed, limits, seq, running=False, seats=[]))
    used = used_time(feed, seq)
    seats = [_seat(limits, used, s, s in resigned) for s in range(feed.meta.header.seats)]
    # A viewer who sees the game late must not be shown a clock running on a move it cannot see yet.
    running = not feed.finished and seq == feed.seq
    shown = _clock(feed, limits, seq, running=running, seats=seats, thinking_since=used.last_ts_ms)
    return json_response(msgspec.structs.replace(shown, vote=open_vote(feed.state_at(seq))))


def open_vote(state: object) -> EndVote | None:
    """The vote to end open in ``state`` (``domain/seat_control.py``), or ``None``."""
    control = getattr(state, "seat_control", None)
    if control is None or control.vote_on is None:
        return None
    return EndVote(seat=control.vote_on, voters=list(control.voters), votes=dict(control.votes))


def table_limits(table: TableClock | None) -> ClockLimits:
    """A table's clock as the client counts it down (``NO_LIMITS``: a table opened without one)."""
    clock = table.to_clock() if table is not None else None
    if table is None or clock is None:
        return NO_LIMITS
    return ClockLimits(
        move_limit_ms=clock.move_ms,
        total_limit_ms=clock.total_ms or None,
        on_timeout=table.on_timeout,
        increment_ms=clock.increment_ms,
    )


def _seat(limits: ClockLimits, used: SeatClocks, seat: int, resigned: bool) -> SeatClock:
    total = limits.total_limit_ms
    return SeatClock(
        seat=seat,
        used_ms=used.used_ms.get(seat, 0),
        timeouts=used.timeouts.get(seat, 0),
        bank_ms=None if total is None else total + limits.increment_ms * used.moves.get(seat, 0),
        away=seat in used.away or resigned or seat in used.resigned,
        bot_plays=seat in used.handed and seat not in used.resigned and not resigned,
        resigned=resigned or seat in used.resigned,
        dropped=seat in used.dropped,
    )


def _clock(
    feed: GameFeed,
    limits: ClockLimits,
    seq: int,
    running: bool,
    seats: list[SeatClock],
    thinking_since: int | None = None,
) -> GameClock:
    """``thinking_since``: when the seats to act began (``SeatClocks.last_ts_ms``: a vote's events do not
    restart a clock); else the time of event ``seq``."""
    last = thinking_since or (feed.entries[seq - 1].envelope.ts_ms if seq >= 1 else None)
    return GameClock(
        game_id=feed.game_id,
        seq=seq,
        move_limit_ms=limits.move_limit_ms,
        total_limit_ms=limits.total_limit_ms,
        on_timeout=limits.on_timeout,
        increment_ms=limits.increment_ms,
        running=running,
        to_act=feed.to_act(feed.state_at(seq)) if running else [],
        last_move_ms=last,
        now_ms=now_ms(),
        seats=seats,
    )
