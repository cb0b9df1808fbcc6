"""The tournament's decisions, folded from its own events: each format runs to its end, a round is
paired once, a table recorded twice is refused, pause holds the next round until resume."""

from __future__ import annotations

import msgspec
import pytest

from domain import GAMES
from domain.engine import Rng, RuleViolation
from domain.tournament import (
    Entrant,
    PointsByPlace,
    RoundPaired,
    State,
    TableFinished,
    TournamentEvent,
    TournamentFinished,
    TournamentSettings,
    current_standings,
    default_tie_breaks,
    fold,
    rules,
)


def _create(players: int, **settings: object) -> tuple[State, list[TournamentEvent]]:
    game = GAMES[str(settings.get("game", "manila"))]
    events = rules.create(
        "t1",
        TournamentSettings(**{"game": "manila", **settings}),  # type: ignore[arg-type]
        [Entrant(name=f"p{i}", bot="random") for i in range(players)],
        min_seats=game.min_seats,
        max_seats=game.max_seats,
        pairing_seed=b"seed",
    )
    return fold(events), events


def _finish_open_tables(state: State, events: list[TournamentEvent], rng: Rng) -> State:
    current = state.current()
    assert current is not None
    for table, players in enumerate(current.pairing.tables):
        if current.results[table] is not None:
            continue
        ranking = tuple(rng.shuffled(players))
        finished = TableFinished(
            round=current.number, table=table, ranking=ranking, scores=tuple(range(len(ranking), 0, -1)),
            winners=ranking[:1], final_hash="h",
        )  # fmt: skip
        new = rules.record_table(state, finished)
        events.extend(new)
        state = fold(new, state)
    return state


def _run(players: int, **settings: object) -> tuple[State, list[TournamentEvent]]:
    state, events = _create(players, **settings)
    new = rules.start(state)
    events.extend(new)
    state = fold(new, state)
    rng = Rng(b"results")
    while state.status != "finished":
        state = _finish_open_tables(state, events, rng)
    return state, events


def test_swiss_runs_its_rounds_and_every_round_is_paired_once() -> None:
    state, events = _run(14, rounds=4, table_size=4)
    paired = [e.round for e in events if isinstance(e, RoundPaired)]
    assert paired == [1, 2, 3, 4]
    assert isinstance(events[-1], TournamentFinished)
    rows = current_standings(state)
    assert events[-1].winners == tuple(r.player for r in rows if r.rank == 1)
    # 14 = 4+4+3+3: no byes; every player played every round.
    assert all(r.tables == 4 and r.byes == 0 for r in rows)
    # The log round-trips through JSON and refolds to the same state (an auditor's replay).
    raw = msgspec.json.encode(events)
    again = msgspec.json.decode(raw, type=list[TournamentEvent])
    assert fold(again) == state


def test_round_robin_and_elimination_end() -> None:
    state, _ = _run(6, format="round_robin", table_size=3)
    assert len(state.rounds) == rules.total_rounds(state) == 3
    state, _ = _run(
        16, format="elimination", table_size=4, advance=2, tie_breaks=default_tie_breaks("elimination")
    )
    assert [len(r.pairing.tables) for r in state.rounds] == [4, 2, 1]
    final = state.rounds[-1].results[0]
    assert final is not None
    assert current_standings(state)[0].player == final.ranking[0] == state.winners[0]


def test_a_table_is_recorded_once_and_pause_holds_the_next_round() -> None:
    state, _ = _create(8, rounds=2, table_size=4)
    state = fold(rules.start(state), state)
    state = fold(rules.pause(state), state)
    current = state.current()
    assert current is not None
    for table, players in enumerate(current.pairing.tables):
        finished = TableFinished(round=1, table=table, ranking=players, scores=(4, 3, 2, 1), winners=players[:1],
                                 final_hash="h")  # fmt: skip
        new = rules.record_table(state, finished)
        assert [type(e).__name__ for e in new] == ["TableFinished"]  # paused: no pairing
        state = fold(new, state)
        with pytest.raises(RuleViolation, match="table_recorded"):
            rules.record_table(state, finished)
    resumed = rules.resume(state)
    assert [type(e).__name__ for e in resumed] == ["TournamentResumed", "RoundClosed", "RoundPaired"]


def test_settings_the_game_cannot_play_are_refused() -> None:
    with pytest.raises(RuleViolation, match="settings"):
        _create(10, table_size=6)
    with pytest.raises(RuleViolation, match="entrants"):
        _create(2)
    with pytest.raises(RuleViolation, match="points"):
        _create(10, points=PointsByPlace(by_size={"4": (6, 5, 3, 1)}))
