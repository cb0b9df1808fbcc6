"""Verify a tournament's export offline: the whole tournament, not only its own chain.

1. The hash chain from the header, and each event's readable form against its hashed payload.
2. Every decision re-decided by the rules from the state before it: the creation, the start and its
   pairing, each recording of tables with the round it closes and the next pairing (or the end), pause
   and resume, and the organiser's withdrawals and cancellation. The pairing seed is public, so anyone can.
3. The end line: the export reaches the event it states and holds the lines it counts, so a file cut
   short is caught. Exports made before end lines existed have none: one whose events end the tournament
   (finished or cancelled) is whole, since nothing follows that event, and each table's game line is
   checked anyway; one that ends with the tournament still running cannot be told from a cut, and fails.
4. The games (``tournament_games``): one game line per table, tied to its result's final hash; with the
   archives (``<game id>.jsonl.gz``), every game verified on its own and its result re-derived from its
   final state: ranking, places, in-game scores, winners and forfeits must be what was recorded.

Like a game's end line, the tournament's is not signed: a tournament rewritten as a whole and re-hashed
is told from the original by its games' archives (whose seeds are committed to in their headers) and by
the tournament's last hash as the server showed it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import msgspec

from domain.engine import Game, RuleViolation
from domain.tournament import (
    PlayerReplaced,
    PlayerWithdrawn,
    TableFinished,
    TournamentCancelled,
    TournamentCreated,
    TournamentEvent,
    TournamentPaused,
    TournamentResumed,
    TournamentStarted,
    evolve,
)
from domain.tournament import rules as tournament_rules
from domain.tournament.state import State
from events.chain import first_broken_link
from events.envelope import Envelope, GameHeader
from services.audit.tournament_games import GameLine, check_games

_event = msgspec.msgpack.Decoder(TournamentEvent)
ENDED = ("finished", "cancelled")


class TournamentReport(msgspec.Struct, kw_only=True):
    tournament_id: str = ""
    events: int = 0
    decisions_checked: int = 0
    rounds_checked: int = 0
    games: int = 0
    proven: int = 0
    """Results re-derived from their game's archive and found as recorded."""
    unproven: list[str] = msgspec.field(default_factory=list)
    """Games with a recorded result whose archive was not at hand: tied to the chain only."""
    unrecorded: list[str] = msgspec.field(default_factory=list)
    """Games that ended (archived) in a round not closed at the export: no result yet, nothing to prove."""
    adjudicated: list[str] = msgspec.field(default_factory=list)
    """Tables the organiser decided (``<game id>: <reason>``) whose game's archive was not at hand."""
    adjudicated_proven: list[str] = msgspec.field(default_factory=list)
    """Tables the organiser decided, proven against their game's archive: decided at a position the game
    reached, before it ended."""
    status: str = ""
    """The tournament's status at the export's last event (``running``: verified up to it)."""
    ended: bool = False
    """The export has its end line."""
    problems: list[str] = msgspec.field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Nothing found wrong (results without an archive are ``unproven``, not wrong)."""
        return not self.problems and self.events > 0


class EndLine(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    kind: str
    last_seq: int
    last_hash: str
    events: int
    games: int
    status: str


class _Parsed(msgspec.Struct, kw_only=True):
    header: GameHeader | None = None
    envelopes: list[Envelope] = msgspec.field(default_factory=list)
    readable: list[Any] = msgspec.field(default_factory=list)
    games: list[GameLine] = msgspec.field(default_factory=list)
    end: EndLine | None = None


def verify_tournament_lines(
    lines: Iterable[bytes],
    archives: Path | None = None,
    games: Mapping[str, Game[Any, Any, Any, Any]] | None = None,
) -> TournamentReport:
    """Every problem found, in order; ``ok`` when there is none. ``archives`` is the folder of the games'
    archives (``None``: results are tied to the chain only, and listed as ``unproven``)."""
    report = TournamentReport()
    parsed = _parse(lines, report)
    if parsed.header is None:
        report.problems.append("no header line")
        return report
    report.tournament_id, report.events = parsed.header.game_id, len(parsed.envelopes)
    report.games, report.ended = len(parsed.games), parsed.end is not None
    broken = first_broken_link(parsed.header, parsed.envelopes)
    if broken is not None:
        report.problems.append(f"chain broken at seq {broken[0]}: {broken[1]}")
        return report
    replayed = _replay(parsed, report)
    if replayed is None:
        return report
    state, finished = replayed
    report.status = state.status
    _check_end(parsed, report)
    if games is None:
        from domain import GAMES

        games = GAMES
    check_games(state, finished, parsed.games, archives, games, report)
    return report


# --- reading ---------------------------------------------------------------------------------------------


def _parse(lines: Iterable[bytes], report: TournamentReport) -> _Parsed:
    parsed = _Parsed()
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        if parsed.end is not None:
            report.problems.append(f"line {number} comes after the end line")
        try:
            _read_line(msgspec.json.decode(raw), parsed)
        except (msgspec.DecodeError, msgspec.ValidationError, ValueError, TypeError, KeyError) as exc:
            report.problems.append(f"line {number} is not a valid export line: {exc}")
    return parsed


def _read_line(line: Any, parsed: _Parsed) -> None:
    kind = line.get("kind") if isinstance(line, dict) else None
    if kind == "header":
        parsed.header = msgspec.convert({k: v for k, v in line.items() if k != "kind"}, type=GameHeader)
    elif kind == "event":
        fields = {k: v for k, v in line.items() if k not in ("kind", "event")}
        fields["payload"] = bytes.fromhex(str(fields["payload"]))
        parsed.envelopes.append(msgspec.convert(fields, type=Envelope))
        parsed.readable.append(line.get("event"))
    elif kind == "game":
        parsed.games.append(msgspec.convert(line, type=GameLine))
    elif kind == "end":
        parsed.end = msgspec.convert(line, type=EndLine)
    else:
        raise ValueError(f"unknown kind {kind!r}")


# --- the tournament's own decisions ----------------------------------------------------------------------


def _decode(parsed: _Parsed, report: TournamentReport) -> list[TournamentEvent] | None:
    """Each payload decoded, and its readable form checked against it."""
    events: list[TournamentEvent] = []
    for envelope, readable in zip(parsed.envelopes, parsed.readable, strict=True):
        try:
            event = _event.decode(envelope.payload)
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            report.problems.append(f"seq {envelope.seq}: the payload is not a tournament event: {exc}")
            return None
        if readable is not None and not _reads_as(readable, event):
            report.problems.append(f"seq {envelope.seq}: the readable event differs from its hashed payload")
        events.append(event)
    return events


def _reads_as(readable: Any, event: TournamentEvent) -> bool:
    """The readable form says what the payload says. Read as the event it claims to be, so that a field
    added since (with its default) is the same on both sides: an export made before it still verifies."""
    try:
        converted: TournamentEvent = msgspec.convert(readable, type=TournamentEvent)
    except (msgspec.ValidationError, TypeError):
        return False
    return converted == event and _says_nothing_more(readable, msgspec.to_builtins(event))


def _says_nothing_more(readable: Any, event: Any) -> bool:
    """No key in the readable form that the event lacks (reading it as the event would pass over one)."""
    if isinstance(readable, dict):
        return isinstance(event, dict) and all(
            key in event and _says_nothing_more(value, event[key]) for key, value in readable.items()
        )
    if isinstance(readable, list):
        return isinstance(event, (list, tuple)) and all(map(_says_nothing_more, readable, event))
    return True


def _groups(
    envelopes: list[Envelope], events: list[TournamentEvent]
) -> list[list[tuple[int, TournamentEvent]]]:
    """The events in decisions: each decision's events share one command id and follow each other."""
    groups: list[list[tuple[int, TournamentEvent]]] = []
    previous = None
    for envelope, event in zip(envelopes, events, strict=True):
        if not groups or envelope.command_id != previous:
            groups.append([])
        groups[-1].append((envelope.seq, event))
        previous = envelope.command_id
    return groups


def _replay(
    parsed: _Parsed, report: TournamentReport
) -> tuple[State, dict[tuple[int, int], TableFinished]] | None:
    """Fold every decision after re-deciding it; returns the final state and every recorded table."""
    events = _decode(parsed, report)
    if events is None or not events:
        if events is not None:
            report.problems.append("no events")
        return None
    state: State | None = None
    finished: dict[tuple[int, int], TableFinished] = {}
    for group in _groups(parsed.envelopes, events):
        seq, first = group[0]
        decided = [event for _, event in group]
        expected = _redecide(state, decided, parsed.header, report, seq)
        if expected is not None and expected != decided:
            report.problems.append(_difference(group, expected))
        report.decisions_checked += 1
        report.rounds_checked += sum(type(e).__name__ == "RoundPaired" for e in decided)
        try:
            for event in decided:
                state = evolve(state, event)
                if isinstance(event, TableFinished):
                    finished[(event.round, event.table)] = event
        except (ValueError, ArithmeticError, LookupError, TypeError) as exc:
            report.problems.append(f"seq {seq}: {type(first).__name__} does not fold: {exc!r}")
            return None
    assert state is not None
    return state, finished


def _redecide(
    state: State | None,
    decided: list[TournamentEvent],
    header: GameHeader | None,
    report: TournamentReport,
    seq: int,
) -> list[TournamentEvent] | None:
    """What the rules decide where the export has ``decided`` (``None``: a problem, already reported)."""
    first = decided[0]
    try:
        if isinstance(first, TournamentCreated):
            if header is not None and first.tournament_id != header.game_id:
                report.problems.append(
                    f"seq {seq}: created as {first.tournament_id!r}, not {header.game_id!r}"
                )
            return tournament_rules.create(
                first.tournament_id, first.settings, first.entrants,
                min_seats=first.min_seats, max_seats=first.max_seats, pairing_seed=first.pairing_seed,
                rules=first.rules,  # an input, as recorded: each version's pairing is re-decided by its rules
            )  # fmt: skip
        if state is None:
            report.problems.append(f"seq {seq}: the tournament does not start with its creation")
            return None
        if isinstance(first, TournamentStarted):
            return tournament_rules.start(state, first.seeds)  # the seeds are inputs, as recorded
        if isinstance(first, TournamentPaused):
            return tournament_rules.pause(state)
        if isinstance(first, TournamentResumed):
            return tournament_rules.resume(state)
        if isinstance(first, TableFinished):
            tables = [_as_decided(e) for e in decided if isinstance(e, TableFinished)]
            return tournament_rules.record_tables(state, tables)
        if isinstance(first, PlayerWithdrawn):
            return tournament_rules.withdraw(state, first.player, first.reason)
        if isinstance(first, PlayerReplaced):
            return tournament_rules.replace_person(state, first.player, first.name)
        if isinstance(first, TournamentCancelled):
            return tournament_rules.cancel(state, first.reason)
    except RuleViolation as exc:
        report.problems.append(f"seq {seq}: {type(first).__name__} is refused by the rules: {exc.message}")
        return None
    except (ValueError, ArithmeticError, LookupError, TypeError) as exc:  # settings no server would accept
        report.problems.append(f"seq {seq}: {type(first).__name__} cannot be decided again: {exc!r}")
        return None
    report.problems.append(f"seq {seq}: no rule decides a {type(first).__name__} here")
    return None


def _as_decided(finished: TableFinished) -> TableFinished:
    """An adjudicated result as ``rules.adjudicate`` makes it from its ranking (so that no game's result
    can pass as the organiser's with scores or places of its own); any other as recorded."""
    if not finished.adjudicated:
        return finished
    return tournament_rules.adjudicated_result(
        finished.round, finished.table, finished.ranking, finished.final_hash, finished.adjudicated
    )


def _difference(group: list[tuple[int, TournamentEvent]], expected: list[TournamentEvent]) -> str:
    for (seq, event), wanted in zip(group, expected, strict=False):
        if event != wanted:
            return f"seq {seq}: {type(event).__name__} is not what the rules decide"
    seq = group[0][0]
    return f"seq {seq}: the rules decide {len(expected)} events here, the export has {len(group)}"


def _check_end(parsed: _Parsed, report: TournamentReport) -> None:
    end, last = parsed.end, parsed.envelopes[-1]
    if end is None and report.status in ENDED:
        return  # an export made before end lines: nothing can follow the event that ended the tournament
    if end is None:
        report.problems.append(
            f"the export has no end line: it is cut short after seq {last.seq} (or was exported before "
            "tournament exports had one: export it again)"
        )
    elif (end.last_seq, end.last_hash) != (last.seq, last.hash):
        report.problems.append(
            f"the export ends at seq {last.seq}, but its end line says the tournament reached seq "
            f"{end.last_seq}: events are missing"
        )
    elif (end.events, end.games) != (len(parsed.envelopes), len(parsed.games)):
        report.problems.append(
            f"{len(parsed.envelopes)} event and {len(parsed.games)} game lines, but the end line counts "
            f"{end.events} and {end.games}: lines are missing"
        )
    elif end.status != report.status:
        report.problems.append(
            f"the end line says the tournament is {end.status}, its events say {report.status}"
        )
