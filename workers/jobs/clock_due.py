"""A timeout at its deadline, not at the next reconcile pass (issue 42.6: a no-show played a default move
every ~3 s, so an El Capitán round with one no-show took 730 s).

Two parts, both in the fold worker's process (``workers/runner.py``):

- ``ClockTrigger``, the fold worker's hook after each applied command of a clocked tournament's game: the
  seats' clocks read on from the last position it saw (``events/clocks.seat_clocks``, only the new
  events), then at once the default move of a seat already out of time (a no-show's or a forfeited
  seat's later turns: due 0 ms after the last event), or else the game armed in ``clock.DUE`` for the
  moment its first seat to act will be out of time;
- ``ClockWatcher``, a thread that sleeps until the earliest armed moment, takes each game due (one
  atomic pop: of several watchers, one claims it) and claims its timeouts (``clock.claim_timeouts``),
  which re-arms it when nothing was due after all (the game moved on meanwhile).

The reconcile pass still claims and arms every live game of a round: it makes good a hook or a watcher
lost in a crash. A claim is idempotent (its command id is the position's), so a claim twice is harmless.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import structlog

from domain.tournament import State, TournamentSettings
from events import codec, keys
from events.bus import CommandBus
from events.clocks import Clock, SeatClocks, seat_clocks, tournament_clock
from events.ids import parse_tournament_game_id
from events.store import EventStore, LoadedGame, now_ms
from events.tournament_store import TournamentStore, decode, tournament_key
from workers.jobs import table_clocks
from workers.jobs.clock import DUE, arm, claim_game, claim_timeouts, disarm, seat_after_timeout
from workers.jobs.failures import TRANSIENT
from workers.outage import Episode, is_outage

log = structlog.get_logger("clock_due")

_POP = """
-- KEYS[1]: the armed games (score: when due, ms); ARGV[1]: now (ms); ARGV[2]: most to take.
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, ARGV[2])
if #due > 0 then redis.call('ZREM', KEYS[1], unpack(due)) end
return due
"""
KEPT_GAMES = 4096
"""Games whose seat clocks a hook keeps between commands (a fold worker's partitions' live games)."""
IDLE_S = 0.25
"""The longest a watcher sleeps: a game armed by another process is seen within that."""
ENDED = Clock(move_ms=0)
"""A cancelled tournament's clock: every seat to act is out of time, so each of its games still being
played goes on by default moves alone, at once, to its end (``end_games``)."""
STATUS_EVERY_S = 1.0
"""How often a process asks again whether a tournament was cancelled (once it was, never again)."""


def cancelled(client: Any, game_id: str) -> bool:
    """Whether ``game_id`` is a table of a tournament that was cancelled."""
    parsed = parse_tournament_game_id(game_id)
    return parsed is not None and client.hget(tournament_key(parsed[0], "meta"), "status") == b"cancelled"


def end_games(client: Any, game_ids: Iterable[str]) -> None:
    """A cancelled tournament's games still being played (``game_ids``) end: each armed as due now, so the
    clock watcher plays the default move of every seat to act (``ENDED``), and the hook each next one."""
    for game_id in game_ids:
        arm(client, game_id, now_ms())


def claim_round(
    store: EventStore, settings: TournamentSettings, game_ids: Sequence[str], partitions: int
) -> None:
    """The timeouts of the games' seats out of time now; the others armed for when they will be. The same
    clock tournament verify holds each timeout to (``services/audit/timeouts.py``)."""
    if not settings.clocked or not game_ids:
        return
    forfeit = settings.on_timeout == "forfeit"
    clock = tournament_clock(settings.move_limit_s, settings.total_limit_s, settings.no_show_s, forfeit)
    claim_timeouts(store, CommandBus(store.redis, partitions), game_ids, now_ms=now_ms(), clock=clock)


def arm_opened(
    store: EventStore, settings: TournamentSettings, game_ids: Sequence[str], partitions: int
) -> None:
    """``claim_round`` for a round just opened. A clock its stored settings cannot make (a tournament stored
    before settings were checked) is logged and left to the reconcile pass, which sets the tournament aside
    with the reason, as it always did."""
    try:
        claim_round(store, settings, game_ids, partitions)
    except TRANSIENT:
        raise
    except Exception as exc:
        log.warning("clock_not_armed", games=len(game_ids), error=str(exc) or type(exc).__name__)


GAMES_ENDED = "games_ended"
"""Set in a cancelled tournament's meta hash once none of its games is still being played."""


def end_cancelled(client: Any, tids: Iterable[str]) -> None:
    """The reconcile pass's part for cancelled tournaments not yet marked ``GAMES_ENDED``: the games each
    still has live are armed again (the cancel's own arming may have died with its process), or, with none
    left, it is marked and never visited again. One that cannot be read is logged; the others go on."""
    for tid in tids:
        try:
            _end_cancelled(client, TournamentStore(client).load(tid).state)
        except TRANSIENT:
            raise
        except Exception as exc:
            log.warning("cancelled_games_not_ended", tournament_id=tid, error=str(exc) or type(exc).__name__)


def _end_cancelled(client: Any, state: State) -> None:
    current = state.current()
    games = list(current.games) if current is not None else []
    pipe = client.pipeline(transaction=False)
    for game_id in games:
        pipe.hget(keys.meta(game_id), "status")
    live = [g for g, status in zip(games, pipe.execute(), strict=True) if status == b"live"]
    if live:
        end_games(client, live)
    else:
        client.hset(tournament_key(state.tournament_id, "meta"), GAMES_ENDED, 1)


class TournamentClocks:
    """Each tournament's clock, from its ``TournamentCreated`` (set at creation, never changed: kept)."""

    def __init__(self, client: Any) -> None:
        self.redis = client
        self._known: dict[str, Clock | None] = {}
        self._asked: dict[str, float] = {}
        self._cancelled: set[str] = set()

    def __call__(self, game_id: str) -> Clock | None:
        """The clock of the tournament ``game_id`` is a table of (``None``: not clocked, or no tournament;
        ``ENDED`` once it was cancelled)."""
        parsed = parse_tournament_game_id(game_id)
        if parsed is None:
            return None
        tid = parsed[0]
        if self._was_cancelled(tid):
            return ENDED
        if tid not in self._known:
            self._known[tid] = self._read(tid)
        return self._known[tid]

    def _was_cancelled(self, tid: str) -> bool:
        now = time.monotonic()
        if tid not in self._cancelled and now - self._asked.get(tid, -STATUS_EVERY_S) >= STATUS_EVERY_S:
            self._asked[tid] = now
            if self.redis.hget(tournament_key(tid, "meta"), "status") == b"cancelled":
                self._cancelled.add(tid)
        return tid in self._cancelled

    def _read(self, tid: str) -> Clock | None:
        entries = self.redis.xrange(tournament_key(tid, "events"), count=1)
        if not entries:
            return None
        created = decode(codec.decode_envelope(entries[0][1][b"e"]))
        settings = getattr(created, "settings", None)
        if settings is None or not settings.clocked:
            return None
        forfeit = settings.on_timeout == "forfeit"
        return tournament_clock(settings.move_limit_s, settings.total_limit_s, settings.no_show_s, forfeit)


StandIn = Callable[[str, LoadedGame, dict[str, str]], object]
"""Enqueue the turn of these stand-in bots (seat as text -> bot) at the game's position."""
TABLES_KEPT = 65_536
"""Games whose table clock (or its absence) a process keeps: a table's clock is written with its claim,
before its game exists, so a game first seen without one never has one."""


class GameClocks:
    """The clock of any game: its tournament's (``TournamentClocks``) or the table's it was opened with
    (``workers/jobs/table_clocks.py``), or ``None``."""

    def __init__(self, client: Any) -> None:
        self.redis = client
        self.tournaments = TournamentClocks(client)
        self._tables: OrderedDict[str, tuple[Clock | None, bool]] = OrderedDict()

    def __call__(self, game_id: str) -> Clock | None:
        if parse_tournament_game_id(game_id) is not None:
            return self.tournaments(game_id)
        return self._table(game_id)[0]

    def is_table(self, game_id: str) -> bool:
        """Whether a table made the game (its claim wrote its clock, ``none`` included)."""
        return parse_tournament_game_id(game_id) is None and self._table(game_id)[1]

    def _table(self, game_id: str) -> tuple[Clock | None, bool]:
        if game_id in self._tables:
            self._tables.move_to_end(game_id)
            return self._tables[game_id]
        raw = self.redis.get(table_clocks.clock_key(game_id))
        table = table_clocks.decode(raw)
        known = (table.to_clock() if table is not None else None, raw is not None)
        self._tables[game_id] = known
        if len(self._tables) > TABLES_KEPT:
            self._tables.popitem(last=False)
        return known


class ClockTrigger:
    """The fold worker's hook: claim an out-of-time seat's move at once, or arm the game's deadline."""

    def __init__(self, store: EventStore, bus: CommandBus, stand_in: StandIn | None = None) -> None:
        self.store, self.bus = store, bus
        self.stand_in = stand_in
        """Enqueues a stand-in bot's turn (the fold worker's bot scheduler's ``ensure``)."""
        self.clocks = GameClocks(store.redis)
        self._seats: OrderedDict[str, SeatClocks] = OrderedDict()
        self._claimed: OrderedDict[str, int] = OrderedDict()
        """Game id -> the position this hook last claimed timeouts at. The fold worker calls the hook again
        for a game whose command came twice (``_after_duplicates``): claiming that position again sent a
        second copy of its timeout, whose own duplicate then claimed the next position twice, and so on,
        so the copies of a clock-played game's moves never died out and grew with each extra claimer (the
        tournament chaos run: 140 copies of one timeout in the inbox, a move every few seconds). A claim
        lost after all is claimed again by the watcher (armed before it was sent) or the reconcile pass."""

    def __call__(self, game_id: str, loaded: LoadedGame) -> None:
        clock = self.clocks(game_id)
        table = self.clocks.is_table(game_id)
        if clock is None and not table:
            return
        if loaded.state is None or loaded.game.outcome(loaded.state) is not None:
            self._seats.pop(game_id, None)
            self._claimed.pop(game_id, None)
            disarm(self.store.redis, game_id)
            return
        if self._claimed.get(game_id) == loaded.seq:
            return  # claimed at this position already: its moves are on their way (or armed again)
        seats = self._read_on(game_id, loaded.seq)
        if table and clock is not None:  # behind a seat's applied timeout: handed over, dropped, a vote
            after = seat_after_timeout(loaded, seats, clock.then)
            if after is not None:
                seat, command, command_id = after
                self.bus.submit(game_id, seat, codec.encode_command(command), command_id, origin="clock")
        if table:
            seats.resigned |= table_clocks.resigned(self.store.redis, game_id)  # older games' record
            left = table_clocks.stand_in_seats(loaded, seats, clock)
            if left and self.stand_in is not None:  # a resigned or timed-out seat: its bot's turn at once
                self.stand_in(game_id, loaded, left)
        if clock is None or seats.seq != loaded.seq:  # a log short of the position has no time to go by
            return
        if claim_game(self.store, self.bus, loaded, seats, clock, seats.last_ts_ms, now_ms()):
            self._claimed[game_id] = loaded.seq
            self._claimed.move_to_end(game_id)
            if len(self._claimed) > KEPT_GAMES:
                self._claimed.popitem(last=False)

    def _read_on(self, game_id: str, seq: int) -> SeatClocks:
        """The seats' clocks up to ``seq``: the events after the last position seen, or all of them."""
        known = self._seats.pop(game_id, None)
        if known is None or known.seq > seq:
            known = SeatClocks()
        entries = self.store.redis.xrange(keys.events(game_id), min=f"{known.seq + 1}-0", max=f"{seq}-0")
        clocks = seat_clocks((codec.decode_envelope(fields[b"e"]) for _, fields in entries), known)
        self._seats[game_id] = clocks
        if len(self._seats) > KEPT_GAMES:
            self._seats.popitem(last=False)
        return clocks


def claim_due(store: EventStore, bus: CommandBus, clocks: GameClocks, at_ms: int) -> int:
    """Claim the timeouts of every game armed for ``at_ms`` or before; returns how many moves were sent."""
    due = store.redis.eval(_POP, 1, DUE, at_ms, 100)
    sent = 0
    for raw in due:
        game_id = raw.decode() if isinstance(raw, bytes) else str(raw)
        try:
            clock = clocks(game_id)
            if clock is not None:
                sent += len(claim_timeouts(store, bus, [game_id], now_ms=at_ms, clock=clock))
        except TRANSIENT:
            raise
        except Exception as exc:  # one game it cannot read: the others popped with it go on
            log.warning("clock_claim_failed", game_id=game_id, error=str(exc) or type(exc).__name__)
    return sent


def next_due_s(store: EventStore, at_ms: int) -> float:
    """Seconds until the earliest armed game is due (0: now), at most ``IDLE_S``."""
    first = store.redis.zrange(DUE, 0, 0, withscores=True)
    if not first:
        return IDLE_S
    return max(0.0, min(IDLE_S, (float(first[0][1]) - at_ms) / 1000))


class ClockWatcher(threading.Thread):
    """Claims each armed game's timeouts when they fall due, until ``stop`` is called."""

    def __init__(self, store: EventStore, bus: CommandBus) -> None:
        super().__init__(name="clock-watcher", daemon=True)
        self.store, self.bus = store, bus
        self.clocks = GameClocks(store.redis)
        self._halt = threading.Event()

    def stop(self) -> None:
        self._halt.set()

    def run(self) -> None:
        episode = Episode("clock_watcher")  # Redis away or refusing writes: one warning a stretch
        while not self._halt.is_set():
            started = time.monotonic()
            try:
                claim_due(self.store, self.bus, self.clocks, now_ms())
                wait_s = next_due_s(self.store, now_ms())
                episode.ended()
            except Exception as exc:  # Redis away, a game it cannot read: the reconcile pass still claims
                if is_outage(exc):
                    wait_s = max(IDLE_S * 4, episode.failed(exc, started))
                else:
                    log.warning("clock_watch_failed", error=str(exc) or type(exc).__name__)
                    wait_s = IDLE_S * 4
            self._halt.wait(wait_s)
