"""Eliminations of pairing rules 2 and 3 stored, exported and verified (issue 42.4, 42.5).

The same decisions (a final tied between two players; two of round 1's winners withdrawn while paused) are
recorded through the tournament store under each version; ``tournament verify`` re-decides each export
under the version it names: rules 2's single winner and early end, rules 3's shared win and played final.
A rules 2 export relabelled as rules 3 (re-hashed) is caught: the same decisions are not rules 3's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import msgspec

from domain import GAMES
from domain.engine import Outcome
from domain.tournament import (
    Entrant,
    TableFinished,
    TournamentCreated,
    TournamentEvent,
    TournamentFinished,
    TournamentSettings,
    default_tie_breaks,
    evolve,
)
from domain.tournament import rules as tournament_rules
from domain.tournament.results import table_finished
from domain.tournament.state import State
from events.tournament_store import TournamentStore
from services import tournament_service as service
from services.audit.tournament_verify import verify_tournament_lines
from tests.support.pipeline import services_for

Step = Callable[[State], list[TournamentEvent]]


def _created(tid: str, rules: int) -> TournamentCreated:
    spec = GAMES["manila"]
    settings = TournamentSettings(game="manila", format="elimination", table_size=3, advance=1,
                                  tie_breaks=default_tie_breaks("elimination"))  # fmt: skip
    entrants = [Entrant(name=f"p{i}", bot="greedy") for i in range(9)]
    made = tournament_rules.create(tid, settings, entrants, min_seats=spec.min_seats, max_seats=spec.max_seats,
                                   pairing_seed=b"pairing-seed-42!", rules=rules)  # fmt: skip
    assert isinstance(made[0], TournamentCreated)
    return made[0]


def _results(state: State, scores: Sequence[tuple[int, ...]]) -> list[TableFinished]:
    """The current round's tables as the round job records them (Manila: level scores share a place)."""
    current = state.current()
    assert current is not None
    out = []
    for table, seats in enumerate(current.pairing.tables):
        order = tuple(sorted(range(len(seats)), key=lambda s: -scores[table][s]))
        outcome = Outcome(ranking=order, scores=scores[table], winners=order[:1])
        out.append(table_finished(current.number, table, seats, outcome, f"h{table}", game="manila"))
    return out


def _withdraw_winner(table: int) -> Step:
    """Withdraw the winner of round 1's ``table`` (one decision each, as the organiser makes them)."""

    def step(state: State) -> list[TournamentEvent]:
        result = state.rounds[0].results[table]
        assert result is not None
        return tournament_rules.withdraw(state, result.ranking[0], "left")

    return step


ROUND_1 = [(50, 20, 10), (40, 20, 10), (30, 20, 10)]
STEPS: list[tuple[str, Step]] = [
    ("start", tournament_rules.start),
    ("pause", tournament_rules.pause),
    ("close-r1", lambda s: tournament_rules.record_tables(s, _results(s, ROUND_1))),
    ("withdraw-1", _withdraw_winner(0)),
    ("withdraw-2", _withdraw_winner(1)),
    ("resume", tournament_rules.resume),
]
FINAL: tuple[str, Step] = (
    "close-r2",
    lambda s: tournament_rules.record_tables(s, _results(s, [(114, 114, 80)])),
)


def _record(tid: str, rules: int, redis_url: str) -> tuple[list[bytes], State]:
    services = services_for(redis_url)
    store = TournamentStore(services.redis)
    store.create(_created(tid, rules))
    for command_id, step in [*STEPS, FINAL]:
        loaded = store.load(tid)
        if loaded.state.status == "finished":
            break
        assert store.append(loaded, command_id, step(loaded.state)).status == "ok"
    return list(service.export_lines(services, tid)), store.load(tid).state


def _finished(lines: list[bytes]) -> TournamentFinished:
    decoder = msgspec.msgpack.Decoder(TournamentEvent)
    payloads = [msgspec.json.decode(line).get("payload") for line in lines]
    events = [decoder.decode(bytes.fromhex(p)) for p in payloads if p]
    last = [e for e in events if isinstance(e, TournamentFinished)]
    assert len(last) == 1
    return last[0]


def test_rules_2_and_3_eliminations_each_verify_under_their_own_rules(redis_url, redis_client) -> None:
    old_lines, old = _record("el-v2", 2, redis_url)
    new_lines, new = _record("el-v3", 3, redis_url)
    for lines in (old_lines, new_lines):
        report = verify_tournament_lines(lines)
        assert report.ok and report.status == "finished", report.problems
    assert len(old.rounds) == 1 and len(_finished(old_lines).winners) == 1  # the lone survivor
    assert len(new.rounds) == 2 and len(_finished(new_lines).winners) == 2  # the final, tied
    assert set(_finished(new_lines).winners) <= set(new.rounds[1].pairing.seated())


def test_a_rules_2_export_relabelled_as_rules_3_fails(redis_url, redis_client) -> None:
    """Rules 2's decisions chained under a header naming rules 3: the re-decision tells them apart."""
    services = services_for(redis_url)
    store = TournamentStore(services.redis)
    store.create(_created("el-x", 3))
    state_v2 = evolve(None, _created("el-x", 2))
    for command_id, step in STEPS:
        decided = step(state_v2)  # what rules 2 decides, appended to a rules 3 tournament
        loaded = store.load("el-x")
        assert store.append(loaded, command_id, decided).status == "ok"
        for event in decided:
            state_v2 = evolve(state_v2, event)
    report = verify_tournament_lines(list(service.export_lines(services, "el-x")))
    assert not report.ok
    assert any("is not what the rules decide" in p or "the rules decide" in p for p in report.problems)
