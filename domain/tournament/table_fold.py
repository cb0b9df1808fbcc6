"""Tables' results folded several at once (issue 42): a round close records 2,500 tables of a
10,000-player round, and ``evolve`` copies every entrant's rating and the round's results for each one
(O(field) a table, O(field x tables) a round). Here the ratings and each round's results are copied once
per run of tables, each table then costs its own players; the state is the one ``evolve`` gives table by
table (the same helpers rate each table, in the same order)."""

from __future__ import annotations

from collections.abc import Sequence

from msgspec.structs import replace

from domain.tournament.events import TableFinished, TournamentEvent
from domain.tournament.evolve import evolve, rate_into, table_result
from domain.tournament.ratings import Rating
from domain.tournament.standings import TableResult
from domain.tournament.state import State


class TableFold:
    """``TableFinished`` events applied to one state; ``state()`` gives the state they lead to. Mutable
    inside, immutable outside: the states it is given and gives are never changed."""

    def __init__(self, state: State) -> None:
        self._state = state
        self._ratings: list[Rating] | None = None
        self._results: dict[int, list[TableResult | None]] = {}  # round number -> its results so far

    def results(self, number: int) -> Sequence[TableResult | None]:
        """Round ``number``'s results with the tables added so far."""
        kept = self._results.get(number)
        return kept if kept is not None else self._state.rounds[number - 1].results

    def add(self, event: TableFinished) -> None:
        if self._ratings is None:
            self._ratings = list(self._state.ratings)
        results = self._results.get(event.round)
        if results is None:
            results = self._results[event.round] = list(self._state.rounds[event.round - 1].results)
        result = table_result(event)
        results[event.table] = result
        rate_into(self._ratings, event, result)

    def state(self) -> State:
        if self._ratings is None:
            return self._state
        rounds = list(self._state.rounds)
        for number, results in self._results.items():
            rounds[number - 1] = replace(rounds[number - 1], results=tuple(results))
        self._state = replace(self._state, rounds=tuple(rounds), ratings=tuple(self._ratings))
        self._ratings, self._results = None, {}
        return self._state


def fold(events: Sequence[TournamentEvent], state: State | None = None) -> State:
    """Apply ``events`` in order, starting from ``state`` (``None``: before ``TournamentCreated``); each
    run of ``TableFinished`` events is folded at once (a cold load of a 10,000-player tournament)."""
    tables: TableFold | None = None
    for event in events:
        if isinstance(event, TableFinished) and state is not None:
            tables = tables or TableFold(state)
            tables.add(event)
            continue
        if tables is not None:
            state, tables = tables.state(), None
        state = evolve(state, event)
    if tables is not None:
        state = tables.state()
    if state is None:
        raise ValueError("no events to fold")
    return state
