"""The tournament chaos run's checks, from what a user and an auditor can read.

- ``ArchiveWatch``: the archive index (``hm:archive``) read every second during the run; each archive file
  is hashed when first seen verified, and must never change or go (no archive lost or replaced).
- ``audit``: each tournament exported as an auditor takes it away (``tournament export ID --to FOLDER``),
  verified as a user runs it (``harbormaster tournament verify FOLDER``) and by the same function in
  process (every result proven against its game's archive, none unproven); then recomputed: every table's
  result made again from its archive alone (``tournament_games.result_from_archive``), the rounds re-decided
  by the rules from those results (``rules.record_tables``: so the pairings follow from the archives too),
  and the standings, ratings, rounds and winners of that state compared with what the service shows.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec
import redis

from domain import GAMES
from domain.tournament import State, TableFinished, TournamentEvent, evolve
from domain.tournament import rules as tournament_rules
from services import tournament_service as service
from services.audit.tournament_games import result_from_archive
from services.audit.tournament_verify import verify_tournament_lines
from services.audit.verify import read_verified
from services.bootstrap import Services
from services.export_folder import write_folder
from workers.jobs.archive_trigger import ARCHIVE_INDEX

_event = msgspec.msgpack.Decoder(TournamentEvent)


def file_hash(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


class ArchiveWatch:
    """Every archive file's hash when first seen verified in the index; any later change is a replacement,
    a file or an index entry gone is a loss. Redis may be down between passes (it is being killed)."""

    def __init__(self, redis_url: Any) -> None:
        self.redis_url = redis_url
        """A callable: the embedded Redis's URL now (read from the data folder)."""
        self.first: dict[str, tuple[str, str]] = {}
        """Game id -> (file hash, last hash) when first seen verified."""
        self.replaced: list[str] = []
        self.files_gone: list[str] = []
        self.gone: dict[str, str] = {}
        """Index entries gone since first seen verified. A rollback takes an entry back with its seconds and
        the game's archive job writes it again (the file found the same: ``services/archive_conflict.py``):
        an entry back as first seen is not lost."""
        self.passes = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, name="archive-watch", daemon=True)

    @property
    def lost(self) -> list[str]:
        """Files gone, and index entries gone and not back as first seen."""
        return [*self.files_gone, *self.gone.values()]

    def _run(self) -> None:
        while not self.stop.wait(1.0):
            self.check()

    def check(self) -> bool:
        """One pass; False when Redis did not answer."""
        try:
            client = redis.Redis.from_url(self.redis_url(), socket_connect_timeout=2, socket_timeout=5)
            try:
                index = client.hgetall(ARCHIVE_INDEX)
            finally:
                client.close()
        except (redis.RedisError, OSError):
            return False
        self.passes += 1
        entries = {k.decode(): json.loads(v) for k, v in index.items()}
        for game_id in self.first:
            if game_id not in entries:
                self.gone.setdefault(game_id, f"{game_id}: index entry gone")
        for game_id, entry in entries.items():
            if entry.get("verified"):
                self._seen(game_id, Path(entry["file"]), str(entry.get("last_hash")))
        return True

    def _seen(self, game_id: str, path: Path, last_hash: str) -> None:
        digest = file_hash(path)
        if digest is None:
            if f"{game_id}: file gone" not in self.files_gone:
                self.files_gone.append(f"{game_id}: file gone")
            return
        first = self.first.setdefault(game_id, (digest, last_hash))
        if first == (digest, last_hash):
            self.gone.pop(game_id, None)  # back as it was
        if first != (digest, last_hash) and not any(r.startswith(game_id) for r in self.replaced):
            self.replaced.append(
                f"{game_id}: was {first[0][:12]}/{first[1][:12]}, now {digest[:12]}/{last_hash[:12]}"
            )


@dataclass
class Audit:
    """One tournament's audit."""

    tid: str
    status: str = ""
    games: int = 0
    archived: int = 0
    """Its games whose archive file was copied into the folder, identical to the file first seen."""
    proven: int = 0
    cli_exit: int | None = None
    problems: list[str] = field(default_factory=list)
    state: State | None = None
    """The state recomputed from the archives."""
    tables: list[TableFinished] = field(default_factory=list)
    """Every table's result recomputed from its archive, in the order recorded."""


def audit(services: Services, tid: str, folder: Path, watch: ArchiveWatch, shown: dict[str, Any]) -> Audit:
    """``shown``: the tournament as ``GET /api/tournaments/{id}`` shows it once over."""
    out = Audit(tid=tid, status=shown["status"])
    if out.status != "finished":
        out.problems.append(f"{tid}: {out.status} {shown.get('failure') or ''}")
    summary = write_folder(services, tid, folder)
    out.problems += [f"{tid}: game {g} has no archive" for g in summary["not_archived"]]
    lines = (folder / f"{tid}.jsonl").read_bytes().splitlines()
    report = verify_tournament_lines(lines, folder)
    out.games, out.proven = report.games, report.proven
    out.problems += [f"{tid}: verify: {p}" for p in report.problems]
    out.problems += [f"{tid}: unproven {g}" for g in report.unproven]
    for game_id, (digest, _) in watch.first.items():
        copy = folder / f"{game_id}.jsonl.gz"
        if copy.exists():
            out.archived += 1
            if file_hash(copy) != digest:
                out.problems.append(f"{tid}: the archive of {game_id} differs from the one first verified")
    out.cli_exit = _verify_as_a_user(folder)
    if out.cli_exit != 0:
        out.problems.append(f"{tid}: harbormaster tournament verify exited {out.cli_exit}")
    _recompute(lines, folder, out)
    if out.state is not None:
        _compare(out.state, shown, out)
    return out


def _verify_as_a_user(folder: Path) -> int:
    command = [
        sys.executable,
        "-m",
        "services.cli",
        "tournament",
        "verify",
        str(folder),
        "--archives",
        str(folder),
    ]
    done = subprocess.run(command, capture_output=True, timeout=300, check=False)
    return done.returncode


def _groups(lines: list[bytes]) -> list[list[TournamentEvent]]:
    """The export's events in decisions (one command id each, in a row)."""
    groups: list[list[TournamentEvent]] = []
    previous = None
    for raw in lines:
        line = json.loads(raw) if raw.strip() else {}
        if line.get("kind") != "event":
            continue
        if not groups or line["command_id"] != previous:
            groups.append([])
        groups[-1].append(_event.decode(bytes.fromhex(line["payload"])))
        previous = line["command_id"]
    return groups


def _recompute(lines: list[bytes], archives: Path, out: Audit) -> None:
    """The tournament again from its organiser's decisions and its games' archives alone."""
    state: State | None = None
    for decided in _groups(lines):
        if isinstance(decided[0], TableFinished) and state is not None:
            tables = [_from_archive(state, e, archives, out) for e in decided if isinstance(e, TableFinished)]
            decided = tournament_rules.record_tables(state, tables)
        for event in decided:
            state = evolve(state, event)
            if isinstance(event, TableFinished):
                out.tables.append(event)
    out.state = state


def _from_archive(state: State, recorded: TableFinished, archives: Path, out: Audit) -> TableFinished:
    if recorded.adjudicated:
        return recorded  # the organiser's decision, not a game's (there is none in this run)
    played = state.rounds[recorded.round - 1]
    game_id, seats = played.games[recorded.table], played.pairing.tables[recorded.table]
    path = archives / f"{game_id}.jsonl.gz"
    if not path.is_file():
        out.problems.append(f"{out.tid}: {game_id} has no archive to recompute its result from")
        return recorded
    checked, verified = read_verified(path, GAMES)
    game = GAMES[state.settings.game]
    made = None
    if verified is not None and checked.finished:
        made = result_from_archive(verified, game, state.settings, recorded.round, recorded.table, seats)
    if made is None:
        out.problems.append(f"{out.tid}: {game_id}'s archive gives no result")
        return recorded
    if made != recorded:
        out.problems.append(f"{out.tid}: {game_id}: recorded {recorded}, its archive makes {made}")
    return made


def _compare(state: State, shown: dict[str, Any], out: Audit) -> None:
    """What the service shows, field by field, against the recomputation."""
    again = json.loads(json.dumps(service.summary(state, full=True)))
    for key in ("status", "standings", "rounds_played", "winners", "round", "rounds"):
        if shown.get(key) != again.get(key):
            out.problems.append(f"{out.tid}: {key} shown {shown.get(key)} but recomputed {again.get(key)}")
