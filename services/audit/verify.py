"""``harbormaster verify game.jsonl``: check an exported game offline, with no Redis.

1. The hash chain, from the header's genesis hash through every event: a changed byte or a missing event
   is reported with its sequence number.
2. The revealed seed against the header's commitment.
3. Every event replayed through the game's ``evolve``.
4. Every recorded command decided again where it was decided (``decide_at``): an applied command must produce the
   very events stored, a rejected one the same rule code. A game is decided under the rules version it
   was started under (recorded in its first event, ``Game.rules_in``): the set-up is done again under that
   version (``Game.setup_for``), and every later decision reads it from the state.
5. The end line: the export reaches the position it states (a file cut short has no end line, or ends
   before it), no record points past the last event, and a game said to be over reveals its seed. A live
   game's export verifies up to its last event ("live game, verified up to seq N").
6. Every clock timeout (``timeouts.py``): sent by the clock, under the clock's id (its tag keyed with the
   revealed seed), playing the documented default move, not dated before its position.

The end line is not signed: it tells a cut or damaged file, not one rewritten on purpose (compare
``last_hash`` with the server's, or with a hash published while the game was played).
"""

from __future__ import annotations

import gzip
import hashlib
import itertools
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import msgspec

from domain.engine import Game, RuleViolation, decide_at
from events import codec
from events.chain import first_broken_link
from events.envelope import Envelope, GameHeader
from services.audit.jsonl import LINE_DECODER, ChatLine, CommandLine, EndLine, EventLine, HeaderLine
from services.audit.timeouts import check_timeouts, overdue, timeouts


class Problem(msgspec.Struct, frozen=True):
    seq: int
    reason: str


class VerifyReport(msgspec.Struct, kw_only=True):
    game_id: str = ""
    game: str = ""
    events: int = 0
    commands: int = 0
    chat: int = 0
    """Chat lines: counted against the end line, outside the hash chain (not proven)."""
    decisions_checked: bool = False
    timeouts: int = 0
    """Clock timeouts checked (``timeouts.py``): origin, id, default move, and with the seed their tags."""
    last_seq: int = 0
    """The last event verified."""
    finished: bool = False
    """Whether the game is over (its seed is revealed); if not, it is verified up to ``last_seq``."""
    problems: list[Problem] = msgspec.field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def first_problem(self) -> Problem | None:
        return min(self.problems, key=lambda p: p.seq) if self.problems else None


class _Parsed(msgspec.Struct, kw_only=True):
    header: HeaderLine | None = None
    events: list[EventLine] = msgspec.field(default_factory=list)
    commands: list[CommandLine] = msgspec.field(default_factory=list)
    chat: int = 0
    end: EndLine | None = None


class Verified(msgspec.Struct, kw_only=True):
    """A game whose export verified: its header, its events and its state after the last of them."""

    header: GameHeader
    envelopes: list[Envelope]
    state: Any
    commands: list[CommandLine] = msgspec.field(default_factory=list)


def verify_file(path: Path, games: Mapping[str, Game[Any, Any, Any, Any]]) -> VerifyReport:
    """Verify an export file; one ending in ``.gz`` (an archive) is read through gzip."""
    return read_verified(path, games)[0]


def read_verified(
    path: Path, games: Mapping[str, Game[Any, Any, Any, Any]]
) -> tuple[VerifyReport, Verified | None]:
    """Verify an export file and, when it verifies, keep what it proved (read once, replayed once)."""
    opener: Any = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rb") as handle:
        return _verify(handle, games)


def verify_lines(lines: Iterable[bytes], games: Mapping[str, Game[Any, Any, Any, Any]]) -> VerifyReport:
    """Verify an export; every problem found carries the sequence number where it is."""
    return _verify(lines, games)[0]


def _verify(
    lines: Iterable[bytes], games: Mapping[str, Game[Any, Any, Any, Any]]
) -> tuple[VerifyReport, Verified | None]:
    report = VerifyReport()
    parsed = _parse(lines, report)
    if parsed.header is None:
        report.problems.append(Problem(0, "no header line"))
        return report, None
    header = GameHeader(
        game_id=parsed.header.game_id,
        game=parsed.header.game,
        seats=parsed.header.seats,
        options=parsed.header.options,
        seed_commitment=parsed.header.seed_commitment,
        created_ms=parsed.header.created_ms,
    )
    report.game_id, report.game = header.game_id, header.game
    report.events, report.commands, report.chat = len(parsed.events), len(parsed.commands), parsed.chat
    game = games.get(header.game)
    if game is None:
        report.problems.append(Problem(0, f"unknown game type {header.game!r}"))
        return report, None
    envelopes = _check_chain(header, parsed.events, report)
    seed = _check_seed(header, envelopes, report)
    if not report.problems:  # a broken chain is the problem to report, not the end it no longer reaches
        _check_end(parsed, envelopes, seed, report)
    if report.problems:
        return report, None
    states = _replay(game, envelopes, parsed.events, report)
    if seed is not None and not report.problems:
        _redecide(game, header, seed, envelopes, states, parsed.commands, report)
        report.decisions_checked = True
    if not report.problems:  # a live game's too: the tag waits for its seed, the rest is in the log
        found = check_timeouts(game, seed, envelopes, states, parsed.commands)
        found += overdue(envelopes, parsed.commands, None)
        report.problems.extend(Problem(seq, reason) for seq, reason in found)
        report.timeouts = sum(1 for _ in timeouts(parsed.commands))
    verified = (
        Verified(header=header, envelopes=envelopes, state=states[-1], commands=parsed.commands)
        if report.ok
        else None
    )
    return report, verified


def _parse(lines: Iterable[bytes], report: VerifyReport) -> _Parsed:
    parsed = _Parsed()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            item = LINE_DECODER.decode(line)
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            seq = parsed.events[-1].seq + 1 if parsed.events else 0
            report.problems.append(Problem(seq, f"line {number} is not a valid export line: {exc}"))
            continue
        if parsed.end is not None:
            report.problems.append(Problem(parsed.end.last_seq, f"line {number} comes after the end line"))
        if isinstance(item, HeaderLine):
            parsed.header = item
        elif isinstance(item, EndLine):
            parsed.end = item
        elif isinstance(item, EventLine):
            parsed.events.append(item)
        elif isinstance(item, ChatLine):
            parsed.chat += 1
        else:
            parsed.commands.append(item)
    return parsed


def _envelope(header: GameHeader, line: EventLine) -> Envelope:
    return Envelope(
        game_id=header.game_id,
        seq=line.seq,
        type=line.type,
        version=line.version,
        payload=line.payload,
        command_id=line.command_id,
        seat=line.seat,
        ts_ms=line.ts_ms,
        prev_hash=line.prev_hash,
        hash=line.hash,
        seed=bytes.fromhex(line.seed) if line.seed is not None else None,
    )


def _check_chain(header: GameHeader, lines: list[EventLine], report: VerifyReport) -> list[Envelope]:
    """The envelopes up to the first broken link (``chain.first_broken_link``), which is reported."""
    readable = list(itertools.takewhile(lambda line: line.undecodable is None, lines))
    envelopes = [_envelope(header, line) for line in readable]
    broken = first_broken_link(header, envelopes)
    if broken is not None:
        report.problems.append(Problem(*broken))
        return [e for e in envelopes if e.seq < broken[0]]
    if len(readable) < len(lines):
        seq = lines[len(readable)].seq
        report.problems.append(Problem(seq, f"event {seq} is not a readable envelope (tampered?)"))
    return envelopes


def _check_end(parsed: _Parsed, envelopes: list[Envelope], seed: bytes | None, report: VerifyReport) -> None:
    """The export reaches what its end line states, and no record points past its last event."""
    last = envelopes[-1] if envelopes else None
    report.last_seq, report.finished = (last.seq if last else 0), seed is not None
    end = parsed.end
    if end is None:
        report.problems.append(
            Problem(report.last_seq + 1, "the export has no end line: it is cut short (or damaged)")
        )
    elif (end.last_seq, end.last_hash) != ((last.seq, last.hash) if last else (0, "")):
        report.problems.append(
            Problem(
                min(report.last_seq + 1, end.last_seq),
                f"the export ends at event {report.last_seq}, but its end line says the game reached "
                f"event {end.last_seq}: events are missing",
            )
        )
    elif (end.events, end.commands) != (len(parsed.events), len(parsed.commands)):
        report.problems.append(
            Problem(
                end.last_seq,
                f"{len(parsed.events)} event and {len(parsed.commands)} command lines, but the end line "
                f"counts {end.events} and {end.commands}: lines are missing",
            )
        )
    elif end.chat != parsed.chat:
        report.problems.append(
            Problem(
                end.last_seq,
                f"{parsed.chat} chat lines, but the end line counts {end.chat}: lines are missing",
            )
        )
    elif end.finished != report.finished:
        said = "over" if end.finished else "live"
        report.problems.append(
            Problem(end.last_seq, f"the end line says the game is {said}, the seed says not")
        )
    for record in parsed.commands:
        reach = record.last_seq if record.status == "applied" else record.at_seq
        if reach > report.last_seq:
            report.problems.append(
                Problem(reach, f"command {record.command_id} points past the last event ({report.last_seq})")
            )


def _check_seed(header: GameHeader, envelopes: list[Envelope], report: VerifyReport) -> bytes | None:
    revealed = [e for e in envelopes if e.seed is not None]
    if not revealed:
        return None
    if len(revealed) > 1 or revealed[0] is not envelopes[-1]:
        report.problems.append(Problem(revealed[0].seq, "the seed may be revealed only on the last event"))
        return None
    seed = revealed[0].seed
    assert seed is not None
    if hashlib.sha256(seed).hexdigest() != header.seed_commitment:
        report.problems.append(Problem(revealed[0].seq, "the revealed seed does not match the commitment"))
        return None
    return seed


def _replay(
    game: Game[Any, Any, Any, Any], envelopes: list[Envelope], lines: list[EventLine], report: VerifyReport
) -> list[Any]:
    """States after each event: ``states[n]`` is the state at seq ``n`` (``states[0]`` is ``None``).

    The readable ``event`` of each line must say what the hashed payload says.
    """
    states: list[Any] = [None]
    for envelope, line in zip(envelopes, lines, strict=False):
        try:
            event = codec.decode_event(game, envelope)
            states.append(game.evolve(states[-1], event))
        except Exception as exc:
            report.problems.append(Problem(envelope.seq, f"event {envelope.seq} does not replay: {exc}"))
            break
        if line.event is not None and line.event != msgspec.json.decode(msgspec.json.encode(event)):
            report.problems.append(
                Problem(envelope.seq, f"event {envelope.seq}: readable form differs from payload")
            )
            break
    return states


def _redecide(
    game: Game[Any, Any, Any, Any],
    header: GameHeader,
    seed: bytes,
    envelopes: list[Envelope],
    states: list[Any],
    commands: list[CommandLine],
    report: VerifyReport,
) -> None:
    payloads = [e.payload for e in envelopes]
    rules = game.rules_in(states[-1]) if len(states) > 1 else game.rules
    next_seq = 1
    for record in commands:
        if record.status == "rejected":
            _check_rejection(game, seed, states, record, report)
            continue
        if record.first_seq != next_seq:
            report.problems.append(Problem(next_seq, f"events from {next_seq} are not covered by a command"))
            return
        expected = _decided_events(game, header, seed, states, record, report, rules)
        if expected is None:
            return
        stored = payloads[record.first_seq - 1 : record.last_seq]
        if [codec.encode_event(e) for e in expected] != stored:
            report.problems.append(
                Problem(record.first_seq, f"command {record.command_id} decides to other events than stored")
            )
            return
        next_seq = record.last_seq + 1
    if next_seq != len(envelopes) + 1:
        report.problems.append(
            Problem(next_seq, f"events from {next_seq} were caused by no recorded command")
        )


def _decided_events(
    game: Game[Any, Any, Any, Any],
    header: GameHeader,
    seed: bytes,
    states: list[Any],
    record: CommandLine,
    report: VerifyReport,
    rules: int,
) -> list[Any] | None:
    try:
        if record.at_seq == 0 and record.seat is None:  # the set-up (decided on no state, by the server)
            return game.setup_for(header.seats, header.options, seed, rules)
        command = codec.decode_command(game, record.command.encode())
        assert record.seat is not None
        return decide_at(game, states[record.at_seq], record.seat, command, seed, record.at_seq)
    except (RuleViolation, msgspec.ValidationError, msgspec.DecodeError, AssertionError, IndexError) as exc:
        report.problems.append(
            Problem(record.first_seq, f"command {record.command_id} no longer decides: {exc}")
        )
        return None


def _check_rejection(
    game: Game[Any, Any, Any, Any], seed: bytes, states: list[Any], record: CommandLine, report: VerifyReport
) -> None:
    if record.code in ("command.bad_seat", "command.invalid"):
        return  # refused before the rules were asked; nothing to decide again
    try:
        command = codec.decode_command(game, record.command.encode())
        decide_at(game, states[record.at_seq], record.seat or 0, command, seed, record.at_seq)
    except RuleViolation as exc:
        if exc.code == record.code:
            return
        reason = f"rejected command {record.command_id} now fails with {exc.code}, not {record.code}"
    except (msgspec.ValidationError, msgspec.DecodeError, IndexError) as exc:
        reason = f"rejected command {record.command_id} cannot be decided again: {exc}"
    else:
        reason = f"rejected command {record.command_id} would now be accepted"
    report.problems.append(Problem(record.at_seq, reason))
