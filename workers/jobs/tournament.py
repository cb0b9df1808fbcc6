"""Tournament rounds as rq jobs: when every table of a round has finished, one job records the results,
updates standings and ratings (folded from the results) and pairs the next round, in one append.

Never twice: the job's id is derived from ``(tournament, round)`` and its decision is appended under the
command id ``close-r<round>`` at the sequence number it was chosen on, so a second run (rq's retry, the
reconciler, a duplicate trigger) finds ``dup`` and stops, and a concurrent one ``conflict``.

Triggers: the fold worker's hook, when a tournament game ends (``TournamentTrigger``); and
``reconcile``, which any long-running process may call now and then, for a trigger lost to a crash.
"""

from __future__ import annotations

from typing import Any

import msgspec
import structlog
from rq import Queue, Retry, get_current_job

from domain import games_with_plugins
from domain.engine import RuleViolation
from domain.tournament import RoundPaired, State, TableFinished, TournamentCancelled, TournamentEvent, fold
from domain.tournament import rules as tournament_rules
from events import ids
from events.connection import connect
from events.store import EventStore, LoadedGame
from events.tournament_store import LoadedTournament, TournamentStore, UnknownTournament, tournament_key
from workers.jobs.archive_trigger import recorded_key
from workers.jobs.clock_due import arm_opened, claim_round, end_games
from workers.jobs.failures import TRANSIENT, failure_reason
from workers.jobs.ownership import owned
from workers.jobs.round_open import game_statuses, open_round, tables_key
from workers.jobs.round_results import StoredOutcome, forget_outcomes, keep_outcome, round_results
from workers.jobs.round_trim import trim_recorded

log = structlog.get_logger("tournament")

TOURNAMENT_QUEUE = "hm-tournaments"
ATTEMPTS = 8
"""Choose-and-append attempts on a conflict (another decision landed first) before giving up."""


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
        decision = close_round_state(store, tournaments, tournament_id, number)
        after_decision(store, rq, decision, redis_url, partitions, plugins)
        return decision.events


# --- appending a decision -------------------------------------------------------------------------------


class Decision(msgspec.Struct, frozen=True, kw_only=True):
    """A decision's events and the tournament's state after them (what acting on it reads: no reload)."""

    events: list[TournamentEvent]
    state: State


def append_decision(
    tournaments: TournamentStore, tournament_id: str, command_id: str, choose: Any
) -> Decision:
    """Choose on the newest state (``choose(state) -> events``) and append under ``command_id``; on a
    conflict (another process appended first) choose again on the newer state. Returns the events appended
    (none when it was done before, or when ``choose`` has none) and the state after them: the state chosen
    on with the events folded in (the stream at the append is that state's events and these)."""
    for _ in range(ATTEMPTS):
        loaded = tournaments.load(tournament_id)
        chosen: list[TournamentEvent] | Decision = choose(loaded.state)
        # A ``Decision`` from ``choose``: the state after was folded in choosing (a round's close rates every
        # table as it records it), so it is not folded again, here or for the meta hash's status.
        events = chosen.events if isinstance(chosen, Decision) else chosen
        if not events:
            return Decision(events=[], state=loaded.state)
        after = chosen.state if isinstance(chosen, Decision) else fold(events, loaded.state)
        result = tournaments.append(loaded, command_id, events, after)
        if result.status == "ok":
            return Decision(events=events, state=after)
        if result.status == "dup":
            return Decision(events=[], state=loaded.state)
    raise RuntimeError(f"tournament {tournament_id}: {command_id} kept conflicting")


def close_round(
    store: EventStore, tournaments: TournamentStore, tournament_id: str, number: int
) -> list[TournamentEvent]:
    """Record every table of round ``number`` if all have finished, and pair the next round."""
    return close_round_state(store, tournaments, tournament_id, number).events


def close_round_state(
    store: EventStore, tournaments: TournamentStore, tournament_id: str, number: int
) -> Decision:
    """``close_round``, with the state after it. The tables' results are read in one batch
    (``round_results``: each game's stored outcome, a cold load only for a game without one)."""

    def choose(state: State) -> list[TournamentEvent] | Decision:
        if len(state.rounds) < number or state.status not in ("running", "paused"):
            return []
        played = state.rounds[number - 1]
        missing = [t for t, r in enumerate(played.results) if r is None]
        results = round_results(store, state, number, missing) if missing else None
        if not results:
            return []
        events, after = tournament_rules.record_tables_state(state, results)
        return Decision(events=events, state=after)

    return append_decision(tournaments, tournament_id, f"close-r{number}", choose)


# --- acting on decisions ---------------------------------------------------------------------------------


def after_decision(
    store: EventStore,
    rq: Any,
    decision: Decision,
    redis_url: str,
    partitions: int,
    plugins: tuple[str, ...],
) -> None:
    """Act on a decision with the state it left (no reload): trim the games whose tables it recorded
    (archived ones; ``trim_archived``), open any round it paired, end the games of a tournament it
    cancelled (``clock_due.end_games``)."""
    state, tid = decision.state, decision.state.tournament_id
    recorded = [e for e in decision.events if isinstance(e, TableFinished)]
    if recorded:
        game_ids = [state.rounds[e.round - 1].games[e.table] for e in recorded]
        store.redis.sadd(recorded_key(tid), *game_ids)
        forget_outcomes(store.redis, tid, [e.round for e in recorded])
        trim_recorded(store, tid, game_ids)  # archived ones, in batches
    for event in decision.events:
        if isinstance(event, RoundPaired):
            open_round(store, rq, state, event, redis_url, partitions, plugins)
            arm_opened(store, state.settings, event.games, partitions)  # each game's first deadline
        if isinstance(event, TournamentCancelled) and (current := state.current()):
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
    except UnknownTournament:  # a job left from a tournament no longer stored: nothing to set aside
        log.warning("round_job_without_tournament", tournament_id=tournament_id, round=number)
        return 0
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
        outcome = loaded.game.outcome(loaded.state) if loaded.meta.tournament else None
        if outcome is None:
            return
        parsed = ids.parse_tournament_game_id(game_id)
        if parsed is None:
            return
        tid, number, _ = parsed
        pipe = self.redis.pipeline(transaction=False)
        # The outcome, at the position it is of: the round's close reads it instead of loading the game.
        keep_outcome(
            pipe, tid, number, game_id, StoredOutcome(seq=loaded.seq, hash=loaded.hash, outcome=outcome)
        )
        pipe.sadd(_done_key(tid, number), game_id)
        pipe.scard(_done_key(tid, number))
        pipe.hget(tables_key(tid), f"r{number}")
        *_, done, tables = pipe.execute()
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
    decision = append_decision(tournaments, tournament_id, command_id, verb)
    try:
        after_decision(store, rq, decision, redis_url, partitions, plugins)
    except TRANSIENT:
        raise
    except Exception as exc:
        log.exception("tournament_failed", tournament_id=tournament_id, command_id=command_id)
        tournaments.mark_failed(tournament_id, failure_reason(exc))
        raise RuleViolation("tournament.failed", f"the tournament failed: {failure_reason(exc)}") from exc
    return decision.events
