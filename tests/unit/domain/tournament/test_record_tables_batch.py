"""``record_tables`` records a round's tables in one pass (issue 42: a 10,000-player round's close folded
each table twice and searched the round for an open table after each); its events are exactly those of
recording the tables one at a time as it did before, in every round of each format, in parts, when paused
and with a withdrawal."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from domain import GAMES
from domain.engine import Rng
from domain.tournament import (
    Entrant,
    RoundClosed,
    RoundPaired,
    State,
    TableFinished,
    TournamentEvent,
    TournamentSettings,
    evolve,
    fold,
    rules,
)


def _one_at_a_time(state: State, finished: Sequence[TableFinished]) -> list[TournamentEvent]:
    """The definition before issue 42: each table folded, then the round searched for an open table."""
    events: list[TournamentEvent] = []
    for table in finished:
        rules._check_table(state, table)
        after = evolve(state, table)
        if not after.rounds[table.round - 1].complete() or after.status == "paused":
            new: list[TournamentEvent] = [table]
        else:
            closed = evolve(after, RoundClosed(round=table.round))
            new = [table, RoundClosed(round=table.round), *rules.advance(closed)]
        events += new
        for event in new:  # evolve itself: fold folds a run of tables at once (TableFold)
            state = evolve(state, event)
    return events


def _results(state: State, number: int, rng: Rng) -> list[TableFinished]:
    played = state.rounds[number - 1]
    out = []
    for table, players in enumerate(played.pairing.tables):
        if played.results[table] is not None:
            continue
        ranking = tuple(rng.shuffled(players))
        scores = tuple(rng.randint(0, 3) for _ in ranking)  # ties now and then: shared places
        ordered = tuple(sorted(scores, reverse=True))
        out.append(TableFinished(round=number, table=table, ranking=ranking, scores=ordered,
                                 winners=ranking[:1], final_hash=f"h{table}"))  # fmt: skip
    return out


def _tournament(players: int, fmt: str, size: int, rounds: int = 0) -> State:
    game = GAMES["manila"]
    settings = TournamentSettings(game="manila", format=fmt, table_size=size, rounds=rounds)  # type: ignore[arg-type]
    entrants = [Entrant(name=f"p{i}", bot="random") for i in range(players)]
    created = rules.create("tb", settings, entrants, min_seats=game.min_seats, max_seats=game.max_seats,
                           pairing_seed=b"batch")  # fmt: skip
    state = fold(created)
    return fold(rules.start(state), state)


@pytest.mark.parametrize(
    ("players", "fmt", "size", "rounds"),
    [(26, "swiss", 4, 5), (17, "swiss", 3, 4), (30, "elimination", 4, 0), (12, "round_robin", 3, 0)],
)
def test_a_round_recorded_at_once_gives_the_events_of_one_table_at_a_time(
    players: int, fmt: str, size: int, rounds: int
) -> None:
    state, rng, closed = _tournament(players, fmt, size, rounds), Rng(b"results"), 0
    while state.status == "running":
        current = state.current()
        assert current is not None
        finished = _results(state, current.number, rng)
        batch = rules.record_tables(state, finished)
        assert batch == _one_at_a_time(state, finished)
        closed += sum(isinstance(e, RoundClosed) for e in batch)
        state = fold(batch, state)
    assert state.status == "finished" and closed == len(state.rounds) >= 2


def test_paused_withdrawn_and_split_batches_give_the_same_events() -> None:
    state, rng = _tournament(21, "swiss", 4, 3), Rng(b"paused")
    state = fold(rules.withdraw(state, 5, "left"), state)
    first = _results(state, 1, rng)
    for part in (first[:2], first[2:4]):  # a round recorded in parts: no close until its last table
        assert rules.record_tables(state, part) == _one_at_a_time(state, part) == part
        state = fold(part, state)
    paused = fold(rules.pause(state), state)
    rest = first[4:]
    assert rules.record_tables(paused, rest) == _one_at_a_time(paused, rest) == rest  # paused: no close
    events = rules.record_tables(state, rest)
    assert events == _one_at_a_time(state, rest)
    paired = events[-1]
    assert isinstance(events[len(rest)], RoundClosed) and isinstance(paired, RoundPaired)
    assert all(5 not in table for table in paired.tables)
