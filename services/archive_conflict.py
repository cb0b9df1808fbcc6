"""An archive file on disk is never replaced once it verifies: a second, different one is kept beside it.

The index in Redis (``hm:archive``) says which archive verified, but Redis can lose its last seconds (a
power loss, a failover to a replica that lagged: ``docs/reliability.md``): the index entry goes, the game
goes back a few moves, is played to another end and archived again. The file written first is the one that
was verified (and maybe exported, uploaded, handed to an auditor), so the file itself is the authority:
a new archive is linked into place (``os.link``: refused when a file holds the name), never renamed over
one. When a file is there already:

- the same bytes (a retried job, a second writer): nothing to do;
- a file that does not verify on its own (a writer that died before its check): no verified archive is
  lost, the new file takes its place;
- a file that verifies and differs: it stays, byte for byte; the new one is kept beside it as
  ``<id>.conflict-<sha256 prefix>.jsonl.gz`` (named by its bytes: the same conflict again is one file),
  ``archive_conflict`` is logged with both hashes, and the index entry names both (``conflict``), so the
  archive command, ``verify``, the tournament export and ``tournament verify`` report it and serve neither
  as the game's one history.
"""

from __future__ import annotations

import hashlib
import json
import os
import zlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import structlog

from events.archived import archive_lines
from services.audit.verify import verify_file

log = structlog.get_logger("archive")

CONFLICT_MARK = ".conflict-"
SUFFIX = ".jsonl.gz"


def file_digest(path: Path) -> str:
    """The SHA-256 of the file's bytes (hex)."""
    digest = hashlib.sha256()
    with path.open("rb") as data:
        for block in iter(lambda: data.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def conflict_path(path: Path, digest: str) -> Path:
    """Where a second, different archive of ``path``'s game is kept: named by its own bytes' hash."""
    return path.with_name(f"{path.name[: -len(SUFFIX)]}{CONFLICT_MARK}{digest[:16]}{SUFFIX}")


def conflict_files(path: Path) -> list[Path]:
    """The conflicting archives kept beside the archive file ``path`` (none: the usual case)."""
    stem = path.name[: -len(SUFFIX)] if path.name.endswith(SUFFIX) else path.name
    return sorted(path.parent.glob(f"{stem}{CONFLICT_MARK}*{SUFFIX}"))


def file_entry(path: Path) -> dict[str, Any]:
    """An archive file's index fields: its name, where its chain ends (its end line) and its size."""
    last = b""
    for line in archive_lines(str(path)):
        last = line
    end = json.loads(last)
    return {"file": str(path), "last_seq": end["last_seq"], "last_hash": end["last_hash"],
            "bytes": path.stat().st_size}  # fmt: skip


def place(partial: Path, path: Path, game_id: str, games: Mapping[str, Any]) -> dict[str, Any] | None:
    """Put the written file ``partial`` under ``path`` unless a verified, different archive is there; returns
    the conflict (``{"file", "sha256", "last_seq", "last_hash"}`` of the file kept beside) or ``None``."""
    while True:
        try:
            os.link(partial, path)  # refused if a file holds the name: nothing is renamed over it
        except FileExistsError:
            pass
        else:
            os.unlink(partial)
            return None
        new, old = file_digest(partial), file_digest(path)
        if new == old:  # a retried job, or another writer of the same history
            os.unlink(partial)
            return None
        if _verifies(path, games):
            return _keep_beside(partial, path, game_id, new, old)
        # Never verified (a writer died before its check): nothing verified is lost. Moved aside, not
        # replaced, so a writer that links in between is still seen by the loop.
        aside = path.with_name(f".{path.name}.unverified-{old[:16]}")
        try:
            os.rename(path, aside)
        except FileNotFoundError:
            continue
        log.warning("archive_unverified_replaced", game_id=game_id, old_sha256=old)
        os.unlink(aside)


def _verifies(path: Path, games: Mapping[str, Any]) -> bool:
    """Whether the file verifies on its own as a finished game (a damaged one does not: it is no archive)."""
    try:
        report = verify_file(path, games)
    except (OSError, EOFError, zlib.error, ValueError):
        return False
    return report.ok and report.finished


def _keep_beside(partial: Path, path: Path, game_id: str, new: str, old: str) -> dict[str, Any]:
    target = conflict_path(path, new)
    os.replace(partial, target)  # named by its bytes: replacing it puts the same bytes back
    conflict = file_entry(target) | {"sha256": new}
    kept = file_entry(path)
    log.error("archive_conflict", game_id=game_id, kept_file=str(path), kept_sha256=old,
              kept_last_hash=kept["last_hash"], conflict_file=str(target), conflict_sha256=new,
              conflict_last_hash=conflict["last_hash"])  # fmt: skip
    return conflict


def found_conflict(path: Path) -> dict[str, Any] | None:
    """A conflict kept beside ``path`` by an earlier writer (the index that named it may have been lost)."""
    for other in conflict_files(path):
        return file_entry(other) | {"sha256": file_digest(other)}
    return None
