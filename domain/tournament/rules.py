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
from domain.text import same_name, unprintable
from domain.tournament import elimination, elimination_v2, pairing_v1
from domain.tournament.data import FORMATS, ON_TIMEOUT, Entrant, TournamentSettings
from domain.tournament.events import (
    PlayerReplaced,
    PlayerWithdrawn,
    RoundClosed,
    RoundPaired,
    TableFinished,
    TournamentCancelled,
    TournamentCreated,
    TournamentEvent,
    TournamentFinished,
    TournamentPaused,
    TournamentResumed,
    TournamentStarted,
)
from domain.tournament.evolve import evolve
from domain.tournament.formats import pair_elimination, pair_round_robin, round_robin_rounds
from domain.tournament.history import Player, RoundPairing
from domain.tournament.pairing import pair_swiss
from domain.tournament.seeds import Seeds, check_seeds
from domain.tournament.standings import StandingRow, TableResult, check_tie_breaks, standings
from domain.tournament.state import State
from domain.tournament.table_fold import TableFold
from domain.tournament.tables import check_size

RULES = 3
"""The pairing rules new tournaments are created under. Older versions are kept for the tournaments
created under them: 1 (``pairing_v1``) for those recorded before versions existed, 2 (``elimination_v2``)
for eliminations before shared places and withdrawals were counted in them (issue 42)."""
REASON_CHARS = 200
NAME_CHARS = 100
"""An organiser's reason, as recorded (longer ones are cut)."""


def _refuse(code: str, message: str) -> RuleViolation:
    return RuleViolation(f"tournament.{code}", message)


def game_id(tournament_id: str, round_number: int, table: int) -> str:
    """The id of a table's game: readable and derived, so a retried pairing names the same games."""
    return f"{tournament_id}-r{round_number}-t{table + 1}"


def create(
    tournament_id: str,
    settings: TournamentSettings,
    entrants: Sequence[Entrant],
    *,
    min_seats: int,
    max_seats: int,
    pairing_seed: bytes,
    rules: int = RULES,
) -> list[TournamentEvent]:
    """Create a tournament under the pairing ``rules`` of today (an older version only where ``verify``
    re-decides the creation of a tournament recorded under it)."""
    if not 1 <= rules <= RULES:
        raise _refuse("rules", f"pairing rules version {rules} is unknown; this server has 1 to {RULES}")
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
            rules=rules,
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
    if state.rules == 1:
        return pairing_v1.still_in(state)
    if state.rules == 2:
        return elimination_v2.still_in(state)
    return elimination.still_in(state)


def _elimination_over(state: State) -> bool:
    """The last elimination round was the final, or left too few for a table."""
    last = state.current()
    if state.rules == 2:
        return last is not None and elimination_v2.was_final(
            last.pairing, state.min_seats, len(still_in(state))
        )
    return elimination.over(state)


def _next_pairing(state: State) -> RoundPairing | None:
    """The next round's pairing, or ``None`` when the tournament is over."""
    if state.rules == 1:
        return pairing_v1.next_pairing(state, total_rounds(state), _points(state))
    settings, past = state.settings, _past(state)
    size, low, high, seed = settings.table_size, state.min_seats, state.max_seats, state.pairing_seed
    if settings.format == "elimination":
        if _elimination_over(state):
            return None
        return pair_elimination(still_in(state), past, size=size, min_seats=low, max_seats=high, seed=seed)
    active = state.active()  # a withdrawn player is never paired again
    if len(past) >= total_rounds(state) or len(active) < low:
        return None
    if settings.format == "round_robin":
        return pair_round_robin(
            active, past, size=size, min_seats=low, max_seats=high, seed=seed, total=total_rounds(state),
        )  # fmt: skip
    return pair_swiss(
        active, _points(state), past, size=size, min_seats=low, max_seats=high, seed=seed, seeds=state.seeds
    )


def _points(state: State) -> dict[Player, float]:
    return {row.player: row.values[0] for row in current_standings(state, ("points",))}


def advance(state: State) -> list[TournamentEvent]:
    """Pair the next round, or finish the tournament (an auditor re-decides each pairing with it)."""
    pairing = _next_pairing(state)
    if pairing is None:
        gone = set(state.withdrawn)  # a withdrawn player keeps their results, but wins nothing
        rows = [r for r in current_standings(state) if r.player not in gone]
        return [TournamentFinished(winners=tuple(r.player for r in rows if r.rank == rows[0].rank))]
    number = len(state.rounds) + 1
    games = tuple(game_id(state.tournament_id, number, i) for i in range(len(pairing.tables)))
    return [RoundPaired(round=number, tables=pairing.tables, byes=pairing.byes, games=games)]


def start(state: State, seeds: Seeds = ()) -> list[TournamentEvent]:
    """Close entries and pair the first round, seeded by ``seeds`` (one per entrant, or none)."""
    if state.status != "created":
        raise _refuse("already_started", "the tournament has already started")
    try:
        check_seeds(seeds, len(state.entrants))
    except ValueError as error:
        raise _refuse("seeds", str(error)) from error
    started = TournamentStarted(seeds=tuple(seeds))
    return [started, *advance(evolve(state, started))]


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


def withdraw(state: State, player: Player, reason: str = "") -> list[TournamentEvent]:
    """The organiser withdraws ``player``: not paired in any later round; results so far stay (a table
    they sit at now plays on: its seat plays default moves under a move clock, or is adjudicated)."""
    if state.status in ("finished", "cancelled"):
        raise _refuse("not_running", f"the tournament is {state.status}")
    if not 0 <= player < len(state.entrants):
        raise _refuse("player", f"there is no player {player}")
    if player in state.withdrawn:
        raise _refuse("withdrawn", f"{state.entrants[player].name} is withdrawn already")
    _check_reason(reason)
    return [PlayerWithdrawn(player=player, reason=reason[:REASON_CHARS])]


def adjudicate(
    state: State, number: int, table: int, ranking: Sequence[Player], position: str, reason: str
) -> list[TournamentEvent]:
    """The organiser decides a table whose game has not ended (a person who never came, no clock): its
    ranking as given, places in that order, no in-game scores, ``position`` the game's hash when it was
    decided. Points count; ratings do not move. Like any result, it may close the round."""
    if not reason.strip():
        raise _refuse("reason", "an adjudication states its reason")
    _check_reason(reason)
    return record_table(state, adjudicated_result(number, table, ranking, position, reason[:REASON_CHARS]))


def adjudicated_result(
    number: int, table: int, ranking: Sequence[Player], position: str, reason: str
) -> TableFinished:
    """The result an adjudication records (the verifier rebuilds it from its ranking to compare)."""
    ranking = tuple(ranking)
    return TableFinished(round=number, table=table, ranking=ranking, scores=(0,) * len(ranking),
                         winners=ranking[:1], final_hash=position, places=tuple(range(len(ranking))),
                         adjudicated=reason)  # fmt: skip


def replace_person(state: State, player: Player, name: str) -> list[TournamentEvent]:
    """The organiser gives a person's place to another person (a person for a person: a bot's seat is
    played by the server, which a person cannot take over mid-game)."""
    if state.status in ("finished", "cancelled"):
        raise _refuse("not_running", f"the tournament is {state.status}")
    if not 0 <= player < len(state.entrants):
        raise _refuse("player", f"there is no player {player}")
    if state.entrants[player].bot:
        raise _refuse(
            "replace_bot", f"{state.entrants[player].name} is a bot: only a person's place is given"
        )
    if player in state.withdrawn:
        raise _refuse("withdrawn", f"{state.entrants[player].name} is withdrawn")
    clean = " ".join(name.split())
    if not 1 <= len(clean) <= NAME_CHARS or not clean.isprintable():
        raise _refuse("name", f"a name is 1 to {NAME_CHARS} printable characters")
    taken = {same_name(e.name) for n, e in enumerate(state.entrants) if n != player}
    if same_name(clean) in taken:
        raise _refuse("name", f"{clean!r} is the name of another player of this tournament")
    return [PlayerReplaced(player=player, name=clean)]


def cancel(state: State, reason: str = "") -> list[TournamentEvent]:
    """The organiser cancels the tournament: nothing is paired or recorded after it."""
    if state.status in ("finished", "cancelled"):
        raise _refuse("not_running", f"the tournament is {state.status}")
    _check_reason(reason)
    return [TournamentCancelled(reason=reason[:REASON_CHARS])]


def _check_reason(reason: str) -> None:
    """An organiser's reason is printable text (``domain/text.py``): it is shown to players and auditors."""
    bad = unprintable(reason)
    if bad is not None:
        raise _refuse("reason", f"a reason is printable text: no control or bidi characters ({bad})")


def record_table(state: State, finished: TableFinished) -> list[TournamentEvent]:
    """A table's game ended; the round's last table closes the round and pairs the next one."""
    return record_tables(state, [finished])


def _check_table(
    state: State, finished: TableFinished, results: Sequence[TableResult | None] | None = None
) -> None:
    """``results``: the round's results so far when ``state`` has not folded them (``TableFold``)."""
    if state.status not in ("running", "paused"):
        raise _refuse("not_running", f"the tournament is {state.status}")
    if not 1 <= finished.round <= len(state.rounds):
        raise _refuse("round", f"round {finished.round} has not been paired")
    played = state.rounds[finished.round - 1]
    if not 0 <= finished.table < len(played.results):
        raise _refuse("table", f"round {finished.round} has no table {finished.table + 1}")
    if (played.results if results is None else results)[finished.table] is not None:
        raise _refuse(
            "table_recorded", f"round {finished.round} table {finished.table + 1} is already recorded"
        )
    if sorted(finished.ranking) != sorted(played.pairing.tables[finished.table]):
        raise _refuse("ranking", "the ranking must list exactly the table's players")


def progress(state: State) -> dict[Player, int]:
    """Elimination: 100 per round survived (a bye counts) minus the place at the player's last table."""
    if state.rules == 1:
        return pairing_v1.progress(state)
    if state.rules == 2:
        return elimination_v2.progress(state)
    return elimination.progress(state)


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
        first=_final_places(state),
    )


def _final_places(state: State) -> dict[Player, int]:
    """An elimination's final heads the standings by its places (rules 3: ties share the rank)."""
    if state.settings.format != "elimination" or state.rules < 3:
        return {}
    return elimination.final_places(state)


def record_tables(state: State, finished: Sequence[TableFinished]) -> list[TournamentEvent]:
    """Tables whose games ended, in order (a round job records all of its round's tables in one
    decision); the table that completes its round closes it and pairs the next one. Each table is folded
    once and a round's open tables are counted, not searched for, after each: a 10,000-player round's
    2,500 tables cost O(tables), not O(tables²) (issue 42). The events are those of recording the tables
    one by one."""
    return record_tables_state(state, finished)[0]


def record_tables_state(
    state: State, finished: Sequence[TableFinished]
) -> tuple[list[TournamentEvent], State]:
    """``record_tables``, with the state its events lead to (folded here already: the round job need not
    fold them again, a second of rating a 10,000-player round). The tables up to a round's close are folded
    at once (``TableFold``: each costs its players, not the field); ``state``'s status, rounds and pairings
    are those the tables see, as a table's result changes none of them."""
    events: list[TournamentEvent] = []
    open_tables: dict[int, int] = {}  # round -> its tables still without a result
    tables = TableFold(state)
    for table in finished:
        known = 1 <= table.round <= len(state.rounds)  # else _check_table refuses it
        _check_table(state, table, tables.results(table.round) if known else None)
        if table.round not in open_tables:
            open_tables[table.round] = tables.results(table.round).count(None)
        tables.add(table)
        events.append(table)
        open_tables[table.round] -= 1
        if open_tables[table.round] > 0 or state.status == "paused":
            continue
        closed = RoundClosed(round=table.round)
        state = evolve(tables.state(), closed)
        paired = advance(state)
        events += [closed, *paired]
        for event in paired:
            state = evolve(state, event)
        tables = TableFold(state)
    return events, tables.state()
