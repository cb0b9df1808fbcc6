"""Games recorded before a rule change still verify (issue 32).

``tests/fixtures/rules_v1/`` holds three whole games exported from the real pipeline before issue 32
changed El Capitán's and East India Companies' rules (recorded by ``tests/support/record_game_log.py`` at
commit e1a3b8c). Their first events carry no rules version: they read as version 1, ``verify`` sets them up
again and decides every command under version 1, and they pass. Decided under today's rules, some of
their decisions would come out otherwise: the version is what makes them pass.
"""

from __future__ import annotations

import gzip
from pathlib import Path
from typing import Any

import msgspec
import pytest
from msgspec.structs import replace

from domain import GAMES
from domain.eic import events as eic_ev
from domain.elcapitan import events as elc_ev
from domain.engine import RuleViolation, decide_at
from events import codec
from services.audit.jsonl import LINE_DECODER, CommandLine, EventLine, HeaderLine
from services.audit.verify import verify_file

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "rules_v1"
LOGS = sorted(FIXTURES.glob("*.jsonl.gz"))


def test_the_old_logs_are_there() -> None:
    assert [p.name for p in LOGS] == [
        "eic-2p.jsonl.gz",
        "elcapitan-2p-canarias.jsonl.gz",
        "elcapitan-3p-all.jsonl.gz",
    ]


@pytest.mark.parametrize("path", LOGS, ids=lambda p: p.name)
def test_a_game_recorded_under_the_previous_rules_still_verifies(path: Path) -> None:
    report = verify_file(path, GAMES)
    assert report.ok, report.problems
    assert report.decisions_checked and report.finished and report.commands > 100


def _read(path: Path) -> tuple[HeaderLine, list[Any], list[CommandLine]]:
    header: HeaderLine | None = None
    events: list[Any] = []
    commands: list[CommandLine] = []
    with gzip.open(path, "rb") as handle:
        for raw in handle:
            line = LINE_DECODER.decode(raw)
            if isinstance(line, HeaderLine):
                header = line
            elif isinstance(line, EventLine):
                events.append(line)
            elif isinstance(line, CommandLine):
                commands.append(line)
    assert header is not None
    return header, events, commands


def _changed_decisions(path: Path) -> int:
    """How many recorded commands today's rules decide otherwise than the recorded version 1 did."""
    header, lines, commands = _read(path)
    game = GAMES[header.game]
    first = game.evolve(None, msgspec.convert(lines[0].event, type=game.Event))
    assert game.rules_in(first) == 1 and game.rules > 1
    states: list[Any] = [None, replace(first, rules=game.rules)]  # the stored events, folded under today's
    for line in lines[1:]:
        states.append(game.evolve(states[-1], msgspec.convert(line.event, type=game.Event)))
    seed = bytes.fromhex(lines[-1].seed)
    changed = 0
    for record in commands:
        if record.at_seq == 0:
            continue
        command = codec.decode_command(game, record.command.encode())
        now = states[record.at_seq]
        try:
            events = decide_at(game, now, record.seat or 0, command, seed, record.at_seq)
        except RuleViolation as exc:
            changed += record.status == "applied" or exc.code != record.code
            continue
        stored = [line.payload for line in lines[record.first_seq - 1 : record.last_seq]]
        changed += record.status == "rejected" or [codec.encode_event(e) for e in events] != stored
    return changed


@pytest.mark.parametrize("path", LOGS, ids=lambda p: p.name)
def test_under_todays_rules_the_old_games_would_not_verify(path: Path) -> None:
    assert _changed_decisions(path) > 0


def test_a_first_event_of_version_1_keeps_its_bytes_a_new_game_names_its_version() -> None:
    old = elc_ev.GameStarted(seats=2, expansions=(), start_player=0, data="proposed")
    assert b"rules" not in codec.encode_event(old)
    assert msgspec.to_builtins(old) == {"type": "GameStarted", "seats": 2, "expansions": (), "start_player": 0,
                                        "data": "proposed"}  # fmt: skip
    for key, first in (("elcapitan", elc_ev.GameStarted), ("eic", eic_ev.GameSetUp)):
        game = GAMES[key]
        new = game.setup(2, {}, b"seed")[0]
        assert isinstance(new, first) and new.rules == game.rules == {"elcapitan": 5, "eic": 3}[key]
        assert game.rules_in(game.fold([new])) == game.rules
        again = game.setup_for(2, {}, b"seed", 1)
        assert again[0].rules == 1 and b"rules" not in codec.encode_event(again[0])
        assert game.setup_for(2, {}, b"seed", 2)[0].rules == 2  # every earlier version sets up again
        assert [codec.encode_event(e) for e in again[1:]] == [
            codec.encode_event(e) for e in game.setup(2, {}, b"seed")[1:]
        ]
    with pytest.raises(RuleViolation):
        GAMES["elcapitan"].setup_for(2, {}, b"seed", 6)


def test_manila_version_1_sets_up_with_its_old_bytes_version_2_names_itself() -> None:
    """Manila's version 2 (issue 44: moves may be taken back) is the first it records; a stream without one
    is version 1, set up again byte for byte as before."""
    game = GAMES["manila"]
    assert game.rules == 2
    state, events = game.start(3, {}, b"seed")
    assert game.rules_in(state) == 2 and events[0].rules == 2
    again = game.setup_for(3, {}, b"seed", 1)
    assert b"rules" not in codec.encode_event(again[0]) and game.rules_in(game.fold(again)) == 1
    assert [codec.encode_event(e) for e in again[1:]] == [codec.encode_event(e) for e in events[1:]]
    with pytest.raises(RuleViolation):
        game.setup_for(3, {}, b"seed", 3)
