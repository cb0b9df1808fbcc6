"""Apply one tournament event (total, deterministic; ratings are recomputed from results here)."""

from __future__ import annotations

from msgspec.structs import replace

from domain.tournament.data import Entrant
from domain.tournament.events import (
    PlayerReplaced,
    PlayerWithdrawn,
    RoundClosed,
    RoundPaired,
    TableFinished,
    TournamentCancelled,
    TournamentCreated,
    TournamentEvent,
    TournamentPaused,
    TournamentResumed,
    TournamentStarted,
)
from domain.tournament.history import RoundPairing
from domain.tournament.ratings import Rating, rate_table
from domain.tournament.standings import TableResult
from domain.tournament.state import PlayedRound, State


def _created(event: TournamentCreated) -> State:
    return State(
        tournament_id=event.tournament_id,
        settings=event.settings,
        entrants=event.entrants,
        min_seats=event.min_seats,
        max_seats=event.max_seats,
        pairing_seed=event.pairing_seed,
        rules=event.rules,
        ratings=tuple(Rating() for _ in event.entrants),
    )


def _paired(state: State, event: RoundPaired) -> State:
    played = PlayedRound(
        number=event.round,
        pairing=RoundPairing(tables=event.tables, byes=event.byes),
        games=event.games,
        results=(None,) * len(event.tables),
    )
    return replace(state, rounds=(*state.rounds, played))


def table_result(event: TableFinished) -> TableResult:
    return TableResult(
        ranking=event.ranking,
        scores=event.scores,
        winners=event.winners,
        final_hash=event.final_hash,
        places=event.places,
    )


def rate_into(ratings: list[Rating], event: TableFinished, result: TableResult) -> None:
    """The table's players' new ratings written into ``ratings`` (one per entrant)."""
    rated = [
        (p, place) for p, place in zip(event.ranking, result.place_of(), strict=True) if p not in event.absent
    ]
    if event.adjudicated or len(rated) < 2:  # no-shows and adjudicated games move no rating
        return
    ranking, places = [p for p, _ in rated], [place for _, place in rated]
    # Only the table's players: a dict of every entrant's rating cost O(field) a table (issue 42).
    for player, rating in rate_table({p: ratings[p] for p in ranking}, ranking, places).items():
        ratings[player] = rating


def _table_finished(state: State, event: TableFinished) -> State:
    """One table (several at once: ``table_fold.py``, which a round close and a cold load use)."""
    played = state.rounds[event.round - 1]
    result = table_result(event)
    results = (*played.results[: event.table], result, *played.results[event.table + 1 :])
    rounds = list(state.rounds)
    rounds[event.round - 1] = replace(played, results=results)
    ratings = list(state.ratings)
    rate_into(ratings, event, result)
    return replace(state, rounds=tuple(rounds), ratings=tuple(ratings))


def _closed(state: State, event: RoundClosed) -> State:
    rounds = list(state.rounds)
    rounds[event.round - 1] = replace(rounds[event.round - 1], closed=True)
    return replace(state, rounds=tuple(rounds))


def evolve(state: State | None, event: TournamentEvent) -> State:
    if isinstance(event, TournamentCreated):
        return _created(event)
    if state is None:
        raise ValueError("a tournament starts with TournamentCreated")
    if isinstance(event, TournamentStarted):
        return replace(state, status="running", seeds=event.seeds)
    if isinstance(event, TournamentResumed):
        return replace(state, status="running")
    if isinstance(event, TournamentPaused):
        return replace(state, status="paused")
    if isinstance(event, RoundPaired):
        return _paired(state, event)
    if isinstance(event, TableFinished):
        return _table_finished(state, event)
    if isinstance(event, RoundClosed):
        return _closed(state, event)
    if isinstance(event, PlayerWithdrawn):
        return replace(state, withdrawn=(*state.withdrawn, event.player))
    if isinstance(event, PlayerReplaced):
        entrants = list(state.entrants)
        entrants[event.player] = Entrant(name=event.name, bot=None)
        return replace(state, entrants=tuple(entrants))
    if isinstance(event, TournamentCancelled):
        return replace(state, status="cancelled")
    return replace(state, status="finished", winners=event.winners)
