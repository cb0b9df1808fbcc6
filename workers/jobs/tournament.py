"""Tournament rounds as rq jobs: when every table of a round has finished, one job records the results,
updates standings and ratings (folded from the results) and pairs the next round, in one append.

Never twice: the job's id is derived from ``(tournament, round)`` and its decision is appended under the
command id ``close-r<round>`` at the sequence number it was decided on, so a second run (rq's retry, the
reconciler, a duplicate trigger) finds ``dup`` and stops, and a concurrent one ``conflict``.

Triggers: the fold worker's hook, when a tournament game ends (``TournamentTrigger``); and
``reconcile``, which any long-running process may call now and then, for a trigger lost to a crash.
"""

from __future__ import annotations

import contextlib
import json
import secrets
from collections.abc import Sequence
from typing import Any

import structlog
from rq import Queue, Retry, get_current_job

from domain import games_with_plugins
from domain.engine import RuleViolation
from domain.tournament import RoundPaired, State, TableFinished, TournamentCancelled, TournamentEvent
from domain.tournament import rules as tournament_rules
from domain.tournament.results import table_finished
from events import ids, keys
from events.connection import connect
from events.errors import GameExists, UnknownGame
from events.store import EventStore, LoadedGame
from events.tournament_store import LoadedTournament, TournamentStore, tournament_key
from workers.botrunner import runners_alive
from workers.jobs.account_ratings import seat_tournament_accounts
from workers.jobs.archive_trigger import recorded_key, trim_archived
from workers.jobs.bots import searches
from workers.jobs.clock import read_clocks
from workers.jobs.clock_due import arm_opened, claim_round, end_games
from workers.jobs.failures import TRANSIENT, failure_reason
from workers.jobs.fan_out import chunks, each
from workers.jobs.ownership import owned
from workers.jobs.people import seat_people
from workers.jobs.schedule import make_scheduler

log = structlog.get_logger("tournament")

TOURNAMENT_QUEUE = "hm-tournaments"
ATTEMPTS = 8
"""Decide-and-append attempts on a conflict (another decision landed first) before giving up."""
NAME_CHARS = 24


def round_job_id(tournament_id: str, number: int) -> str:
    return ids.job_id("hm-tround", tournament_id, number)


def _done_key(tournament_id: str, number: int) -> str:
    return tournament_key(tournament_id, f"done:r{number}")


CLOSING_LEASE_MS = 120_000
"""A round close's lease (deciding, trimming, opening the next round); renewed while the close works."""
ROUND_JOB_TIMEOUT_S = 1800
"""The round job's rq timeout (rq's 180 s default was near a 10,000-player close's 122-142 s: issue 42)."""


def _closing_key(tournament_id: str, number: int) -> str:
    """The lease of round ``number``'s close: the round job and any process's reconcile pass take turns,
    so none loads a table's game while the other trims it (issue 42: a reconcile pass that read a game
    being trimmed failed a finished tournament)."""
    return tournament_key(tournament_id, f"closing:r{number}")


def close_and_act(
    store: EventStore,
    rq: Any,
    tournaments: TournamentStore,
    tournament_id: str,
    number: int,
    redis_url: str,
    partitions: int,
    plugins: tuple[str, ...],
) -> list[TournamentEvent]:
    """Close round ``number`` and act on it (trim, open the next round) as its one owner; returns the
    events appended (none when another process is closing it: that one acts, or a later pass does)."""
    with owned(store.redis, _closing_key(tournament_id, number), CLOSING_LEASE_MS, renew=True) as token:
        if token is None:
            log.info("round_close_busy", tournament_id=tournament_id, round=number)
            return []
        events = close_round(store, tournaments, tournament_id, number)
        after_decision(store, rq, tournaments, tournament_id, events, redis_url, partitions, plugins)
        return events


def _tables_key(tournament_id: str) -> str:
    return tournament_key(tournament_id, "tables")


# --- deciding -----------------------------------------------------------------------------------------


def decide(
    tournaments: TournamentStore, tournament_id: str, command_id: str, choose: Any
) -> list[TournamentEvent]:
    """Decide on the newest state with ``choose(state) -> events`` and append; on a conflict decide
    again. Returns the events appended (none when it was done before, or when ``choose`` has none)."""
    for _ in range(ATTEMPTS):
        loaded = tournaments.load(tournament_id)
        events: list[TournamentEvent] = choose(loaded.state)
        if not events:
            return []
        result = tournaments.append(loaded, command_id, events)
        if result.status == "ok":
            return events
        if result.status == "dup":
            return []
    raise RuntimeError(f"tournament {tournament_id}: {command_id} kept conflicting")


def game_statuses(store: EventStore, game_ids: Sequence[str]) -> dict[str, bytes | None]:
    """Each game's status from its meta hash (``live``, ``finished``; ``None``: not created), in one trip."""
    pipe = store.redis.pipeline(transaction=False)
    for game_id in game_ids:
        pipe.hget(keys.meta(game_id), "status")
    return dict(zip(game_ids, pipe.execute(), strict=True))


def _table_result(store: EventStore, state: State, number: int, table: int) -> TableFinished | None:
    """A finished table's result from its game's outcome (``None`` while the game goes on)."""
    played = state.rounds[number - 1]
    game_id = played.games[table]
    try:
        loaded = store.load(game_id)
    except UnknownGame:
        return None
    if loaded.state is None:  # no event read (a game trimmed under the reader): decided again later
        return None
    outcome = loaded.game.outcome(loaded.state)
    if outcome is None:
        return None
    forfeited: list[int] = []
    absent: list[int] = []
    settings = state.settings
    if settings.clocked:  # from the game's own log: anyone can check it
        clocks = read_clocks(store, game_id)
        forfeited = sorted(clocks.timeouts) if settings.on_timeout == "forfeit" else []
        absent = [seat for seat in range(len(played.pairing.tables[table])) if seat not in clocks.moved]
    seats = played.pairing.tables[table]
    return table_finished(number, table, seats, outcome, loaded.hash, game=settings.game,
                          forfeited_seats=forfeited, absent_seats=absent)  # fmt: skip


def close_round(
    store: EventStore, tournaments: TournamentStore, tournament_id: str, number: int
) -> list[TournamentEvent]:
    """Record every table of round ``number`` if all have finished, and pair the next round."""

    def choose(state: State) -> list[TournamentEvent]:
        if len(state.rounds) < number or state.status not in ("running", "paused"):
            return []
        played = state.rounds[number - 1]
        missing = [t for t, r in enumerate(played.results) if r is None]
        statuses = game_statuses(store, [played.games[t] for t in missing])
        if any(status != b"finished" for status in statuses.values()):
            return []
        results = each(lambda t: _table_result(store, state, number, t), missing)
        if not missing or any(r is None for r in results):
            return []
        return tournament_rules.record_tables(state, [r for r in results if r is not None])

    return decide(tournaments, tournament_id, f"close-r{number}", choose)


# --- acting on decisions ---------------------------------------------------------------------------------


def open_round(
    store: EventStore,
    rq: Any,
    state: State,
    paired: RoundPaired,
    redis_url: str,
    partitions: int,
    plugins: tuple[str, ...],
) -> None:
    """Create the round's games (each with a fresh secret seed; an existing one is left alone) with the
    entrants' bots in their seats, their names on the seats and the people's keys as their seats' tokens,
    and set the bots going (their turns on ``rq``, the rq queues' Redis, unless a bot runner is live)."""
    scheduler = make_scheduler(rq, redis_url, 0.0, partitions, plugins)
    runners = runners_alive(store.redis)  # a live bot runner finds the new games on its own
    store.redis.hset(_tables_key(state.tournament_id), f"r{paired.round}", len(paired.tables))
    statuses = game_statuses(store, paired.games)
    game = store.games[state.settings.game]

    def open_table(table: tuple[tuple[int, ...], str]) -> None:
        players, game_id = table
        bots = {seat: state.entrants[p].bot or "" for seat, p in enumerate(players) if state.entrants[p].bot}
        if statuses.get(game_id) is None:  # not created yet (or lost in a crash before it was)
            with contextlib.suppress(GameExists):
                store.create(
                    state.settings.game, game_id, len(players), state.settings.options,
                    secrets.token_bytes(32), bots=bots, tournament=True,
                )  # fmt: skip
        seat_people(store.redis, state.tournament_id, game_id, players)
        seat_tournament_accounts(store.redis, state.tournament_id, game_id, players)  # rated for accounts
        name_seats(store.redis, game_id, [state.entrants[p].name for p in players])
        # A live runner plays all but the search bots' turns: a table with none has nothing to enqueue.
        searching = any(searches(game, bot) for bot in bots.values())
        if statuses.get(game_id) != b"finished" and (searching or not runners):
            scheduler.ensure(game_id, store.load(game_id), only_searching=runners)

    # 8 at a time: their first moves reach the fold worker as a burst of cold loads, which it now folds
    # keeping its leases (renewed within a step) and its cache (issue 42).
    each(open_table, list(zip(paired.tables, paired.games, strict=True)))


def name_seats(client: Any, game_id: str, names: Sequence[str]) -> None:
    """The entrants' names on their seats, where the gateway keeps a game's names (presentation only:
    ``services/gateway/api/names.py``): cut to the 24 printable characters a name may have there."""
    shown = ["".join(c for c in " ".join(n.split()) if c.isprintable())[:NAME_CHARS] for n in names]
    client.hset(keys.game_key(game_id, "spectating"), "names", json.dumps(shown))


def after_decision(
    store: EventStore,
    rq: Any,
    tournaments: TournamentStore,
    tournament_id: str,
    events: Sequence[TournamentEvent],
    redis_url: str,
    partitions: int,
    plugins: tuple[str, ...],
) -> None:
    """Trim the games whose tables it recorded (archived ones; ``trim_archived``), open any round it paired,
    end the games of a tournament it cancelled (``clock_due.end_games``)."""
    recorded = [e for e in events if isinstance(e, TableFinished)]
    if recorded:
        state = tournaments.load(tournament_id).state
        game_ids = [state.rounds[e.round - 1].games[e.table] for e in recorded]
        store.redis.sadd(recorded_key(tournament_id), *game_ids)
        each(lambda part: trim_archived(store, part), chunks(game_ids))
    for event in events:
        if isinstance(event, RoundPaired):
            state = tournaments.load(tournament_id).state
            open_round(store, rq, state, event, redis_url, partitions, plugins)
            arm_opened(store, state.settings, event.games, partitions)  # each game's first deadline
        if isinstance(event, TournamentCancelled) and (
            current := tournaments.load(tournament_id).state.current()
        ):
            end_games(
                store.redis, [g for g, s in game_statuses(store, current.games).items() if s == b"live"]
            )


def run_round_job(
    redis_url: str, tournament_id: str, number: int, partitions: int = 16, plugins: tuple[str, ...] = ()
) -> int:
    """The rq job: close round ``number`` if it is complete; returns how many events it appended. The next
    round's bot turns go on the queues this job came from (``RQ_REDIS_URL``'s Redis on a Cluster)."""
    job = get_current_job()
    assert job is not None, "run_round_job runs as an rq job"
    client = connect(redis_url)  # the game data: a Cluster client on a Cluster
    tournaments = TournamentStore(client)
    try:
        if tournaments.failure(tournament_id) is not None:
            return 0  # set aside: acting on it fails every time
        store = EventStore(client, games_with_plugins(tuple(plugins)))
        events = close_and_act(
            store, job.connection, tournaments, tournament_id, number, redis_url, partitions, plugins
        )
        if events:
            log.info("round_closed", tournament_id=tournament_id, round=number, events=len(events))
        return len(events)
    except TRANSIENT:
        raise  # rq tries the job again
    except Exception as exc:  # this tournament fails, not the worker; marked, so not retried for ever
        log.exception("tournament_failed", tournament_id=tournament_id, round=number)
        tournaments.mark_failed(tournament_id, failure_reason(exc))
        return 0
    finally:
        client.close()


# --- triggers -------------------------------------------------------------------------------------------


class TournamentTrigger:
    """The fold worker's hook: when a tournament game ends, count it; the round's last one enqueues the
    round job (on ``rq``, the rq queues' Redis; the count is kept with the tournament's data)."""

    def __init__(
        self, client: Any, rq: Any, redis_url: str, partitions: int, plugins: tuple[str, ...]
    ) -> None:
        self.redis = client
        self.queue = Queue(TOURNAMENT_QUEUE, connection=rq)
        self.redis_url = redis_url
        self.partitions = partitions
        self.plugins = plugins

    def __call__(self, game_id: str, loaded: LoadedGame) -> None:
        if not loaded.meta.tournament or loaded.game.outcome(loaded.state) is None:
            return
        parsed = ids.parse_tournament_game_id(game_id)
        if parsed is None:
            return
        tid, number, _ = parsed
        pipe = self.redis.pipeline(transaction=False)
        pipe.sadd(_done_key(tid, number), game_id)
        pipe.scard(_done_key(tid, number))
        pipe.hget(_tables_key(tid), f"r{number}")
        _, done, tables = pipe.execute()
        if tables is not None and done >= int(tables):
            enqueue_round(self.queue, self.redis_url, tid, number, self.partitions, self.plugins)


def enqueue_round(
    queue: Any, redis_url: str, tournament_id: str, number: int, partitions: int, plugins: tuple[str, ...]
) -> None:
    """Enqueue the round job unless one of that id is queued or running."""
    job_id = round_job_id(tournament_id, number)
    status = queue.connection.hget(f"rq:job:{job_id}", "status")
    if status in (b"queued", b"started"):
        return
    queue.enqueue_call(
        func=run_round_job,
        args=(redis_url, tournament_id, number, partitions, plugins),
        job_id=job_id,
        timeout=ROUND_JOB_TIMEOUT_S,
        result_ttl=300,
        failure_ttl=3600,
        retry=Retry(max=3),
    )


def reconcile(
    store: EventStore,
    rq: Any,
    tournaments: TournamentStore,
    tournament_id: str,
    redis_url: str,
    partitions: int,
    plugins: tuple[str, ...] = (),
) -> LoadedTournament:
    """Put a running tournament back on its feet after any crash: the current round's games exist and
    their bots are going, seats out of time play their default move (the others' deadlines armed again,
    for a hook or watcher lost in a crash: ``clock_due``), and a round whose
    games all ended is closed (here, not by a job). Safe to call
    at any time from any process; returns the tournament as it is afterwards (a tournament set aside
    as failed is left as it is)."""
    loaded = tournaments.load(tournament_id)
    current = loaded.state.current()
    if loaded.state.status not in ("running", "paused") or current is None:
        return loaded
    if tournaments.failure(tournament_id) is not None:
        return loaded
    if not current.complete():
        open_round(
            store, rq, loaded.state, _as_paired(loaded.state, current.number), redis_url, partitions, plugins
        )
        if loaded.state.settings.clocked:
            live = [g for g, s in game_statuses(store, current.games).items() if s == b"live"]
            claim_round(store, loaded.state.settings, live, partitions)
        close_and_act(store, rq, tournaments, tournament_id, current.number, redis_url, partitions, plugins)
    return tournaments.load(tournament_id)


def _as_paired(state: State, number: int) -> RoundPaired:
    played = state.rounds[number - 1]
    return RoundPaired(
        round=number, tables=played.pairing.tables, byes=played.pairing.byes, games=played.games
    )


def run_decision(
    store: EventStore,
    rq: Any,
    tournaments: TournamentStore,
    tournament_id: str,
    command_id: str,
    verb: Any,
    redis_url: str,
    partitions: int,
    plugins: tuple[str, ...] = (),
) -> list[TournamentEvent]:
    """Start, pause or resume (``verb(state) -> events``) and open what it paired. A tournament set aside
    as failed is refused; one whose paired round cannot be opened is set aside and refused with why."""
    failed = tournaments.failure(tournament_id)
    if failed is not None:
        raise RuleViolation("tournament.failed", f"the tournament failed and is set aside: {failed}")
    events = decide(tournaments, tournament_id, command_id, verb)
    try:
        after_decision(store, rq, tournaments, tournament_id, events, redis_url, partitions, plugins)
    except TRANSIENT:
        raise
    except Exception as exc:
        log.exception("tournament_failed", tournament_id=tournament_id, command_id=command_id)
        tournaments.mark_failed(tournament_id, failure_reason(exc))
        raise RuleViolation("tournament.failed", f"the tournament failed: {failure_reason(exc)}") from exc
    return events
