"""A tournament export's games: each table's game line tied to its recorded result, and, with the games'
archives, every result re-derived from its game (``tournament_verify`` step 4).

A table's result is what ``domain/tournament/results.table_finished`` makes of its game's outcome, the
rule the round job used: so from an archive that verifies on its own (chain, committed seed, every
decision again) the ranking, places, in-game scores, winners and forfeits follow, and must be what the
tournament recorded. The archive must be of this very game: its id, its game and options, the table's
number of seats, and its last hash the result's final hash. Each clock timeout in it was due under the
tournament's clock settings (``timeouts.overdue``: in a tournament without a clock, none is).
"""

from __future__ import annotations

import gzip
import zlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from domain.engine import Game
from domain.tournament import TableFinished, TournamentSettings
from domain.tournament.results import legacy_places, table_finished
from domain.tournament.state import State
from events.clocks import seat_clocks, tournament_clock
from events.envelope import GameHeader
from services.audit.timeouts import overdue
from services.audit.verify import Verified, read_verified

if TYPE_CHECKING:
    from services.audit.tournament_verify import TournamentReport

UNREADABLE = (OSError, EOFError, gzip.BadGzipFile, zlib.error, ValueError, KeyError, TypeError)
"""What a damaged archive file raises when read (a problem to report, never a crash)."""


class GameLine(msgspec.Struct, kw_only=True):
    kind: str
    round: int
    table: int
    """From 1, as people count tables."""
    game_id: str
    final_hash: str | None = None
    archive: str | None = None
    archive_object: str | None = None
    archive_last_hash: str | None = None
    archive_conflict: dict[str, Any] | None = None
    """A second, different archive kept beside the verified one (``services/archive_conflict.py``)."""


class _Game(msgspec.Struct, kw_only=True):
    header: GameHeader
    state: Any
    last_hash: str
    timed_out: list[int]
    moved: set[int]


def check_games(
    state: State,
    finished: Mapping[tuple[int, int], TableFinished],
    lines: list[GameLine],
    archives: Path | None,
    games: Mapping[str, Game[Any, Any, Any, Any]],
    report: TournamentReport,
) -> None:
    """Every table's game line against the chain, and its archive (when at hand) against its result."""
    by_id: dict[str, GameLine] = {}
    for line in lines:
        if line.game_id in by_id:
            report.problems.append(f"game {line.game_id} is listed twice")
        by_id[line.game_id] = line
    named = {g for played in state.rounds for g in played.games}
    for game_id in sorted(set(by_id) - named):
        report.problems.append(f"game line {game_id} names no table of this tournament")
    for played in state.rounds:
        for index, game_id in enumerate(played.games):
            where = f"round {played.number} table {index + 1} ({game_id})"
            recorded = finished.get((played.number, index))
            listed = by_id.get(game_id)
            if listed is None:
                report.problems.append(f"{where}: no game line")
            else:
                _check_line(listed, played.number, index, recorded, where, report)
                _check_conflict(listed, archives, where, report)
                if recorded is None and listed.archive_last_hash is not None:
                    _ended_unrecorded(state, game_id, where, report)
            if recorded is not None and recorded.adjudicated:  # decided by the organiser, not by a game
                _prove_adjudicated(recorded, game_id, archives, games, where, report)
            elif recorded is not None:  # the archive is checked whatever the game line says
                _prove(state, played.pairing.tables[index], recorded, archives, games, where, report)


def _check_line(
    line: GameLine,
    number: int,
    index: int,
    recorded: TableFinished | None,
    where: str,
    report: TournamentReport,
) -> None:
    """The game line names its table and the recorded result's final hash (and so does its archive)."""
    if (line.round, line.table) != (number, index + 1):
        report.problems.append(f"{where}: its game line says round {line.round} table {line.table}")
    recorded_hash = recorded.final_hash if recorded is not None else None
    if line.final_hash != recorded_hash:
        report.problems.append(
            f"{where}: the game line's final hash {line.final_hash} is not the recorded result's {recorded_hash}"
        )
    # A game may end before its round closes (the tournament records a round's tables together), and a
    # result the organiser adjudicated names the game's position then: neither ends at the archive's end.
    unclosed = recorded is None or bool(recorded.adjudicated)
    if line.archive_last_hash is not None and line.archive_last_hash != recorded_hash and not unclosed:
        report.problems.append(
            f"{where}: the game line's archive ends at {line.archive_last_hash}, not at the result"
        )


def _check_conflict(line: GameLine, archives: Path | None, where: str, report: TournamentReport) -> None:
    """Two different archives of one game (Redis lost seconds and the game ended twice): a problem, and
    neither file is taken as the game's history, whichever the result matches."""
    # Named as services/archive_conflict.py keeps them: <id>.conflict-<sha256 prefix>.jsonl.gz
    others = sorted(p.name for p in archives.glob(f"{line.game_id}.conflict-*.jsonl.gz")) if archives else []
    if line.archive_conflict is None and not others:
        return
    conflict = line.archive_conflict or {}
    second = conflict.get("file") or ", ".join(others)
    report.problems.append(
        f"{where}: archive conflict: the verified archive ends at {line.archive_last_hash}, a second "
        f"one ({Path(second).name}) at {conflict.get('last_hash', 'another hash')}; neither is proven"
    )


def _ended_unrecorded(state: State, game_id: str, where: str, report: TournamentReport) -> None:
    """A game archived with no result: its round had not closed at the export (running, or cancelled
    first). A finished tournament has closed every round, so there it is a result missing."""
    if state.status == "finished":
        report.problems.append(f"{where}: its game ended and was archived, but no result is recorded")
    else:
        report.unrecorded.append(game_id)


def _prove_adjudicated(
    recorded: TableFinished,
    game_id: str,
    archives: Path | None,
    games: Mapping[str, Game[Any, Any, Any, Any]],
    where: str,
    report: TournamentReport,
) -> None:
    """An adjudication names its game's position when it was decided; with the game's archive at hand, that
    position is in the game's chain and the game had not ended there (the server refuses to adjudicate a
    game over: its result is the game's, and a played table relabelled an adjudication is caught so)."""
    entry = f"{game_id}: {recorded.adjudicated}"
    path = archives / f"{game_id}.jsonl.gz" if archives is not None else None
    if path is None or not path.is_file():
        report.adjudicated.append(entry)
        return
    try:
        checked, verified = read_verified(path, games)
    except UNREADABLE as exc:
        report.problems.append(f"{where}: its archive {path.name} cannot be read: {exc}")
        return
    if verified is None or verified.header.game_id != game_id:
        report.problems.append(f"{where}: its archive {path.name} does not verify, or is of another game")
        return
    hashes = [envelope.hash for envelope in verified.envelopes]
    if recorded.final_hash not in hashes:
        report.problems.append(
            f"{where}: adjudicated at {recorded.final_hash or 'no position'}, which its game never reached"
        )
    elif checked.finished and recorded.final_hash == hashes[-1]:
        report.problems.append(
            f"{where}: adjudicated after its game had ended (at seq {len(hashes)}): the game's result stands"
        )
    else:
        report.adjudicated_proven.append(entry)


def _prove(
    state: State,
    seats: tuple[int, ...],
    recorded: TableFinished,
    archives: Path | None,
    games: Mapping[str, Game[Any, Any, Any, Any]],
    where: str,
    report: TournamentReport,
) -> None:
    game_id = state.rounds[recorded.round - 1].games[recorded.table]
    path = archives / f"{game_id}.jsonl.gz" if archives is not None else None
    if path is None or not path.is_file():
        report.unproven.append(game_id)
        return
    game = games.get(state.settings.game)
    if game is None:
        report.problems.append(f"{where}: unknown game type {state.settings.game!r}")
        return
    try:
        checked, verified = read_verified(path, games)
    except UNREADABLE as exc:
        report.problems.append(f"{where}: its archive {path.name} cannot be read: {exc}")
        return
    if verified is None or not checked.finished:
        first = checked.first_problem()
        said = f"seq {first.seq}: {first.reason}" if first else "the game is not over"
        report.problems.append(f"{where}: its archive {path.name} does not verify ({said})")
        return
    read = _played(verified)
    settings = state.settings
    clock = tournament_clock(settings.move_limit_s, settings.total_limit_s, settings.no_show_s,
                             settings.on_timeout == "forfeit")  # fmt: skip
    for seq, reason in overdue(verified.envelopes, verified.commands, clock):  # all off: none was due
        report.problems.append(f"{where}: its archive at seq {seq}: {reason}")
    if _same_game(read, state, seats, recorded, where, report):
        _same_result(read, game, state, seats, recorded, where, report)
        report.proven += not any(p.startswith(where) for p in report.problems)


def result_from_archive(
    verified: Verified,
    game: Game[Any, Any, Any, Any],
    settings: TournamentSettings,
    number: int,
    table: int,
    seats: Sequence[int],
) -> TableFinished | None:
    """Table ``table`` of round ``number`` (players ``seats``) as the rules make it of its verified
    archive alone (``None``: the game has no outcome): what ``tournament verify`` holds the recorded result
    to, and what the chaos run recomputes a tournament's standings and ratings from."""
    return _result_of(_played(verified), game, settings, number, table, seats)


def _result_of(
    read: _Game,
    game: Game[Any, Any, Any, Any],
    settings: TournamentSettings,
    number: int,
    table: int,
    seats: Sequence[int],
) -> TableFinished | None:
    outcome = game.outcome(read.state)
    if outcome is None:
        return None
    clocked = settings.clocked
    forfeited = read.timed_out if clocked and settings.on_timeout == "forfeit" else []
    absent = [seat for seat in range(len(seats)) if seat not in read.moved] if clocked else []
    return table_finished(number, table, seats, outcome, read.last_hash, game=settings.game,
                          forfeited_seats=forfeited, absent_seats=absent)  # fmt: skip


def _played(verified: Verified) -> _Game:
    """The verified archive's header, final state, last hash and the seats the clock timed out (its own log)."""
    clocks = seat_clocks(verified.envelopes)
    return _Game(header=verified.header, state=verified.state, last_hash=verified.envelopes[-1].hash,
                 timed_out=sorted(clocks.timeouts), moved=clocks.moved)  # fmt: skip


def _same_game(
    read: _Game,
    state: State,
    seats: tuple[int, ...],
    recorded: TableFinished,
    where: str,
    report: TournamentReport,
) -> bool:
    """The archive is of this table's game, and ends where its result says."""
    game_id = state.rounds[recorded.round - 1].games[recorded.table]
    header, settings = read.header, state.settings
    wrong = []
    if header.game_id != game_id:
        wrong.append(f"it is the archive of game {header.game_id}")
    if (header.game, header.seats, header.options) != (settings.game, len(seats), settings.options):
        wrong.append(f"it is a {header.seats}-seat {header.game} game with options {header.options}")
    if read.last_hash != recorded.final_hash:
        wrong.append(f"the game ends at hash {read.last_hash}, the result names {recorded.final_hash}")
    for reason in wrong:
        report.problems.append(f"{where}: {reason}")
    return not wrong


def _same_result(
    read: _Game,
    game: Game[Any, Any, Any, Any],
    state: State,
    seats: tuple[int, ...],
    recorded: TableFinished,
    where: str,
    report: TournamentReport,
) -> None:
    """The result the rules make of the game's own outcome, field by field against the recorded one."""
    expected = _result_of(read, game, state.settings, recorded.round, recorded.table, seats)
    if expected is None:
        report.problems.append(f"{where}: its game has no outcome")
        return
    # A result recorded before places were is held to the rule it was recorded under: the winners share
    # first place and everyone else is placed in order (the tournament's points were counted so).
    places = recorded.places or legacy_places(recorded.ranking, recorded.winners)
    wanted_places = expected.places if recorded.places else legacy_places(expected.ranking, expected.winners)
    for name, got, wanted in (
        ("ranking", recorded.ranking, expected.ranking),
        ("in-game scores", recorded.scores, expected.scores),
        ("winners", recorded.winners, expected.winners),
        ("forfeits", recorded.forfeits, expected.forfeits),
        ("no-shows", recorded.absent, expected.absent),
        ("places", places, wanted_places),
    ):
        if got != wanted:
            report.problems.append(
                f"{where}: the {name} recorded {list(got)} are not the game's {list(wanted)}"
            )
