"""Deciding the tournament: create, start, record a finished table, pause, resume.

Like a game's ``decide``: each function validates against the folded state and returns the events it
causes, or raises ``RuleViolation``. Recording the last table of a round closes the round and pairs the
next one in the same list of events, so a round is paired exactly once: the store appends the list
atomically at an expected sequence number, and a second recording of a table is refused.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from domain.engine import RuleViolation
from domain.tournament.data import FORMATS, ON_TIMEOUT, Entrant, Settings
from domain.tournament.events import (
    RoundClosed,
    RoundPaired,
    TableFinished,
    TournamentCreated,
    TournamentEvent,
    TournamentFinished,
    TournamentPaused,
    TournamentResumed,
    TournamentStarted,
)
from domain.tournament.evolve import evolve
from domain.tournament.formats import advancing, pair_elimination, pair_round_robin, round_robin_rounds
from domain.tournament.history import Player, RoundPairing
from domain.tournament.pairing import pair_swiss
from domain.tournament.standings import StandingRow, check_tie_breaks, standings
from domain.tournament.state import State
from domain.tournament.tables import check_size


def _refuse(code: str, message: str) -> RuleViolation:
    return RuleViolation(f"tournament.{code}", message)


def game_id(tournament_id: str, round_number: int, table: int) -> str:
    """The id of a table's game: readable and derived, so a retried pairing names the same games."""
    return f"{tournament_id}-r{round_number}-t{table + 1}"


def create(
    tournament_id: str,
    settings: Settings,
    entrants: Sequence[Entrant],
    *,
    min_seats: int,
    max_seats: int,
    pairing_seed: bytes,
) -> list[TournamentEvent]:
    if settings.format not in FORMATS:
        raise _refuse("format", f"unknown format {settings.format!r}; choose from {', '.join(FORMATS)}")
    try:
        check_size(settings.table_size, min_seats, max_seats)
        check_tie_breaks(settings.tie_breaks)
    except ValueError as error:
        raise _refuse("settings", str(error)) from error
    for size in (settings.table_size, settings.table_size - 1):
        if size >= min_seats and len(settings.points.by_size.get(str(size), ())) != size:
            raise _refuse("points", f"points by place for tables of {size} are missing")
    if settings.on_timeout not in ON_TIMEOUT:
        raise _refuse("on_timeout", f"on_timeout is one of {', '.join(ON_TIMEOUT)}")
    if settings.move_limit_s < 0 or settings.total_limit_s < 0:
        raise _refuse("clock", "clock limits are seconds, 0 or more")
    if len(entrants) < min_seats:
        raise _refuse("entrants", f"{len(entrants)} entrants cannot fill one table of {min_seats}")
    if settings.format == "elimination" and not 1 <= settings.advance < min_seats:
        raise _refuse("advance", f"advance must be 1 to {min_seats - 1} so that a table eliminates someone")
    return [
        TournamentCreated(
            tournament_id=tournament_id,
            settings=settings,
            entrants=tuple(entrants),
            min_seats=min_seats,
            max_seats=max_seats,
            pairing_seed=pairing_seed,
        )
    ]


def total_rounds(state: State) -> int:
    """Rounds this tournament plays (elimination: an upper bound until it ends)."""
    settings, players = state.settings, len(state.entrants)
    if settings.rounds:
        return settings.rounds
    if settings.format == "round_robin":
        return round_robin_rounds(players, settings.table_size)
    if settings.format == "elimination":
        return max(1, math.ceil(math.log(max(players, 2)) / math.log(settings.table_size / settings.advance)))
    return max(3, math.ceil(math.log2(max(players, 2))))


def _past(state: State) -> list[RoundPairing]:
    return [r.pairing for r in state.rounds]


def still_in(state: State) -> list[Player]:
    """Elimination: the players going on, best seeds first (place at their table, then table order)."""
    last = state.current()
    if last is None:
        return list(state.players)
    going: list[tuple[int, int, Player]] = [(0, -1, p) for p in last.pairing.byes]
    for index, result in enumerate(last.results):
        assert result is not None
        going.extend(
            (place, index, p) for place, p in enumerate(advancing(result.ranking, state.settings.advance))
        )
    return [p for _, _, p in sorted(going)]


def _next_pairing(state: State) -> RoundPairing | None:
    """The next round's pairing, or ``None`` when the tournament is over."""
    settings, past = state.settings, _past(state)
    size, low, high, seed = settings.table_size, state.min_seats, state.max_seats, state.pairing_seed
    if settings.format == "elimination":
        last = state.current()
        if last is not None and (len(last.pairing.tables) <= 1 or len(still_in(state)) < state.min_seats):
            return None
        return pair_elimination(still_in(state), past, size=size, min_seats=low, max_seats=high, seed=seed)
    if len(past) >= total_rounds(state):
        return None
    if settings.format == "round_robin":
        return pair_round_robin(
            list(state.players), past, size=size, min_seats=low, max_seats=high, seed=seed
        )
    scores = {row.player: row.values[0] for row in current_standings(state, ("points",))}
    return pair_swiss(list(state.players), scores, past, size=size, min_seats=low, max_seats=high, seed=seed)


def advance(state: State) -> list[TournamentEvent]:
    """Pair the next round, or finish the tournament (an auditor re-decides each pairing with it)."""
    pairing = _next_pairing(state)
    if pairing is None:
        rows = current_standings(state)
        return [TournamentFinished(winners=tuple(r.player for r in rows if r.rank == 1))]
    number = len(state.rounds) + 1
    games = tuple(game_id(state.tournament_id, number, i) for i in range(len(pairing.tables)))
    return [RoundPaired(round=number, tables=pairing.tables, byes=pairing.byes, games=games)]


def start(state: State) -> list[TournamentEvent]:
    if state.status != "created":
        raise _refuse("already_started", "the tournament has already started")
    return [TournamentStarted(), *advance(state)]


def pause(state: State) -> list[TournamentEvent]:
    if state.status != "running":
        raise _refuse("not_running", f"only a running tournament can pause (it is {state.status})")
    return [TournamentPaused()]


def resume(state: State) -> list[TournamentEvent]:
    """Resume; a round that completed while paused is closed and the next one paired now."""
    if state.status != "paused":
        raise _refuse("not_paused", f"only a paused tournament can resume (it is {state.status})")
    current = state.current()
    if current is not None and current.complete() and not current.closed:
        resumed = evolve(state, TournamentResumed())
        closed = evolve(resumed, RoundClosed(round=current.number))
        return [TournamentResumed(), RoundClosed(round=current.number), *advance(closed)]
    return [TournamentResumed()]


def record_table(state: State, finished: TableFinished) -> list[TournamentEvent]:
    """A table's game ended; the round's last table closes the round and pairs the next one."""
    if state.status not in ("running", "paused"):
        raise _refuse("not_running", f"the tournament is {state.status}")
    if not 1 <= finished.round <= len(state.rounds):
        raise _refuse("round", f"round {finished.round} has not been paired")
    played = state.rounds[finished.round - 1]
    if not 0 <= finished.table < len(played.results):
        raise _refuse("table", f"round {finished.round} has no table {finished.table}")
    if played.results[finished.table] is not None:
        raise _refuse("table_recorded", f"round {finished.round} table {finished.table} is already recorded")
    if sorted(finished.ranking) != sorted(played.pairing.tables[finished.table]):
        raise _refuse("ranking", "the ranking must list exactly the table's players")
    after = evolve(state, finished)
    current = after.rounds[finished.round - 1]
    if not current.complete() or after.status == "paused":
        return [finished]
    closed = evolve(after, RoundClosed(round=finished.round))
    return [finished, RoundClosed(round=finished.round), *advance(closed)]


def progress(state: State) -> dict[Player, int]:
    """Elimination: 100 per round survived (a bye counts) minus the place at the player's last table."""
    out: dict[Player, int] = {}
    for played in state.rounds:
        for p in played.pairing.byes:
            out[p] = 100 * played.number
        for result in played.results:
            if result is None:
                continue
            for place, p in enumerate(result.ranking):
                survived = played.number + (place < state.settings.advance and len(played.results) > 1)
                out[p] = 100 * survived - place
    return out


def current_standings(state: State, tie_breaks: Sequence[str] | None = None) -> list[StandingRow]:
    """Standings from every result recorded so far."""
    breaks = tuple(tie_breaks or state.settings.tie_breaks)
    return standings(
        state.players,
        state.results(),
        state.byes(),
        points=state.settings.points,
        tie_breaks=breaks,
        progress=progress(state) if "progress" in breaks else None,
    )


def record_tables(state: State, finished: Sequence[TableFinished]) -> list[TournamentEvent]:
    """Several tables at once (a round job records all of its round's tables in one decision)."""
    events: list[TournamentEvent] = []
    for table in finished:
        new = record_table(state, table)
        events.extend(new)
        for event in new:
            state = evolve(state, event)
    return events
