"""Tournaments recorded before the pairing rules were versioned still verify.

``tests/fixtures/tournaments_v1/`` holds four tournaments exported at commit e1a3b8c, before issue 33, by
that commit's own ``harbormaster tournament run`` and ``tournament export`` (Manila, greedy and random bots):
a Swiss, a round-robin at tables of 3 and two eliminations, with the game archives of one of them. They
have no end line, their events lack the fields added since, their results have no places, and their
``TournamentCreated`` carries no rules version: it reads as version 1 (``domain/tournament/pairing_v1.py``),
under which ``verify`` re-decides every pairing. Under today's pairing rules the round-robin and the
elimination would have been decided otherwise: the version is what makes them pass.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import msgspec
import pytest
from msgspec.structs import replace

from domain.engine import RuleViolation
from domain.tournament import TableFinished, TournamentCreated, TournamentEvent, evolve
from domain.tournament import rules as tournament_rules
from domain.tournament.data import TournamentSettings
from services.audit.tournament_verify import verify_tournament_lines

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "tournaments_v1"
_event = msgspec.msgpack.Decoder(TournamentEvent)


def _lines(name: str) -> list[bytes]:
    return gzip.decompress((FIXTURES / f"{name}.jsonl.gz").read_bytes()).splitlines()


def _events(name: str) -> list[TournamentEvent]:
    lines = [json.loads(line) for line in _lines(name)]
    return [_event.decode(bytes.fromhex(line["payload"])) for line in lines if line["kind"] == "event"]


@pytest.mark.parametrize("name", ["sw-old", "rr-old", "el-old", "el2-old"])
def test_a_tournament_recorded_before_versions_verifies(name: str) -> None:
    archives = FIXTURES / "archives" if name == "el2-old" else None
    report = verify_tournament_lines(_lines(name), archives)
    assert report.ok, report.problems
    assert report.status == "finished" and not report.ended  # whole by its events, with no end line
    assert report.rounds_checked >= 2 and report.decisions_checked >= 4
    if archives is not None:  # its results, with no places recorded, held to the rule of their day
        assert report.proven == report.games == 3 and not report.unproven


def test_the_old_tournaments_read_as_version_1_and_new_ones_are_version_3() -> None:
    for name in ("sw-old", "rr-old", "el-old", "el2-old"):
        created = _events(name)[0]
        assert isinstance(created, TournamentCreated) and created.rules == 1
    assert tournament_rules.RULES == 3  # 2: eliminations before issue 42 (elimination_v2.py)
    settings = TournamentSettings(game="manila", format="swiss", table_size=3)
    entrants = _events("sw-old")[0].entrants
    made = tournament_rules.create("t", settings, entrants, min_seats=3, max_seats=5, pairing_seed=b"s" * 16)
    assert isinstance(made[0], TournamentCreated) and made[0].rules == 3
    with pytest.raises(RuleViolation) as refused:
        tournament_rules.create("t", settings, entrants, min_seats=3, max_seats=5, pairing_seed=b"s", rules=4)
    assert refused.value.code == "tournament.rules"


def test_todays_rules_would_pair_the_old_round_robin_otherwise() -> None:
    created, started, paired = _events("rr-old")[:3]
    state = evolve(None, created)
    assert tournament_rules.start(state) == [started, paired]
    today = tournament_rules.start(replace(state, rules=tournament_rules.RULES))
    assert today[1].tables != paired.tables


def test_todays_rules_would_end_the_old_elimination_otherwise() -> None:
    """Its last round was one table beside a bye: version 1 ends there, version 2 plays on to a final."""
    events = _events("el-old")
    last = max(i for i, e in enumerate(events) if isinstance(e, TableFinished))
    state = None
    for event in events[:last]:
        state = evolve(state, event)
    assert state is not None
    finished = events[last]
    assert isinstance(finished, TableFinished)
    recorded = events[last:]
    assert tournament_rules.record_tables(state, [finished]) == recorded
    today = tournament_rules.record_tables(replace(state, rules=tournament_rules.RULES), [finished])
    assert today != recorded
