"""``TableFold`` (issue 42: a round's tables folded at once, each costing its players, not the field) gives
the state ``evolve`` gives table by table: in a round close (``record_tables_state``) and in ``fold`` (a cold
load), with no-shows, adjudicated tables, shared places, withdrawals and a pause; and a table recorded
twice in one batch is still refused."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from domain import GAMES
from domain.engine import Rng, RuleViolation
from domain.tournament import (
    Entrant,
    State,
    TableFinished,
    TournamentEvent,
    TournamentSettings,
    evolve,
    fold,
    rules,
)


def _each(events: Sequence[TournamentEvent], state: State | None = None) -> State:
    """The definition: ``evolve`` event by event."""
    for event in events:
        state = evolve(state, event)
    assert state is not None
    return state


def _created(players: int, fmt: str, size: int, rounds: int) -> list[TournamentEvent]:
    game = GAMES["manila"]
    settings = TournamentSettings(game="manila", format=fmt, table_size=size, rounds=rounds)  # type: ignore[arg-type]
    entrants = [Entrant(name=f"p{i}", bot="random") for i in range(players)]
    created = rules.create("tf", settings, entrants, min_seats=game.min_seats, max_seats=game.max_seats,
                           pairing_seed=b"fold")  # fmt: skip
    return [*created, *rules.start(_each(created))]


def _finished(state: State, rng: Rng) -> list[TableFinished]:
    """The open tables' results: ties (shared places), now and then a no-show or an adjudication."""
    played = state.rounds[-1]
    out = []
    for table, players in enumerate(played.pairing.tables):
        if played.results[table] is not None:
            continue
        ranking = tuple(rng.shuffled(players))
        scores = tuple(sorted((rng.randint(0, 3) for _ in ranking), reverse=True))
        places = tuple(scores.index(s) for s in scores)
        odd = rng.randint(0, 9)
        out.append(TableFinished(round=played.number, table=table, ranking=ranking, scores=scores,
                                 winners=ranking[: places.count(0)], final_hash=f"h{table}", places=places,
                                 absent=ranking[-1:] if odd == 0 else (),
                                 adjudicated="stalled" if odd == 1 else ""))  # fmt: skip
    return out


@pytest.mark.parametrize(
    ("players", "fmt", "size", "rounds"),
    [(26, "swiss", 4, 4), (23, "swiss", 5, 3), (30, "elimination", 4, 0), (12, "round_robin", 3, 0)],
)
def test_a_close_and_a_cold_load_fold_to_the_state_of_evolve(
    players: int, fmt: str, size: int, rounds: int
) -> None:
    log, rng = _created(players, fmt, size, rounds), Rng(b"tables")
    state = _each(log)
    while state.status == "running":
        finished = _finished(state, rng)
        if len(state.rounds) == 2 and state.settings.format == "swiss":  # a withdrawal and a pause mid-round
            log += rules.withdraw(state, finished[0].ranking[0], "left")
            state = _each(log)
            split = len(finished) // 2
            events, after = rules.record_tables_state(state, finished[:split])
            log += events + rules.pause(after)
            assert after == _each(events, state)
            state, finished = _each(log), finished[split:]
            events, after = rules.record_tables_state(state, finished)  # paused: no close
            log += events + rules.resume(after)
            assert after == _each(events, state)
            state = _each(log)
            continue
        events, after = rules.record_tables_state(state, finished)
        assert after == _each(events, state)
        log += events
        state = after
    assert state.status == "finished" and len(state.rounds) >= 2
    assert fold(log) == _each(log)
    assert fold(log[5:], _each(log[:5])) == state  # from a kept fold, as a warm load goes on


def test_a_table_twice_in_one_batch_is_refused() -> None:
    state = _each(_created(12, "swiss", 4, 2))
    finished = _finished(state, Rng(b"twice"))
    with pytest.raises(RuleViolation) as refused:
        rules.record_tables_state(state, [finished[0], finished[1], finished[0]])
    assert refused.value.code == "tournament.table_recorded"
