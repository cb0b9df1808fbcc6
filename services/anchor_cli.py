"""The anchor flags of ``verify`` and ``tournament verify`` (``--log``, ``--checkpoint``, ``--receipts``,
``--log-key``, ``--witness``), and what they print: the checks are ``services.audit.anchor``'s.

Output: ``ANCHOR FAILED: …`` on stderr for each difference from what the operator committed to (exit 1);
``ANCHORED: …`` for what is proven and against what; ``NOT PROVEN: …`` for what could not be.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import TextIO

from services.audit.anchor import AnchorReport, Anchors, check_anchors
from services.audit.chains import ExportChain, pairing_seed_problem, read_game_chain, safe, tournament_chain
from services.cli_common import UserError
from services.log_fetch import fetched_log, is_url

LOG_FILE = "log.jsonl"
"""The log's export in a tournament's export folder."""


def add_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--log", help="the log: its export (log.jsonl), the log folder beside the archives, or a "
                        "service's address (https://host: fetched from its /api/log)")  # fmt: skip
    parser.add_argument(
        "--checkpoint", help="a signed checkpoint of the log you kept (GET /api/log/checkpoint)"
    )
    parser.add_argument(
        "--receipts", help="a player's receipts file (the web client's 'Download my receipts')"
    )
    parser.add_argument("--log-key", help="the log's verifier key, taken from outside the export (pins it)")
    parser.add_argument("--witness", action="append", default=[], help="a witness's verifier key whose "
                        "cosignature the checkpoint must carry (repeatable)")  # fmt: skip


def anchors_from(args: argparse.Namespace, default_log: Path | None = None) -> Anchors:
    def path(value: str | None, folder: bool = False) -> Path | None:
        if value is None:
            return None
        found = Path(value)
        if not (found.is_file() or (folder and found.is_dir())):
            raise UserError(f"no such file: {found}")
        return found

    named_log = getattr(args, "log", None)
    if named_log is not None and is_url(
        named_log
    ):  # a running service's log, fetched, then checked as a file
        log: Path | None = fetched_log(named_log)
    else:
        log = path(named_log, folder=True) or default_log
    return Anchors(log=log, checkpoint=path(getattr(args, "checkpoint", None)),
                   receipts=path(getattr(args, "receipts", None)), log_key=getattr(args, "log_key", None),
                   witnesses=list(getattr(args, "witness", None) or []))  # fmt: skip


def verify_chain(chain: ExportChain | None, args: argparse.Namespace) -> int:
    """A game's export against the anchors given; prints what they prove. 0, or 1 on a difference."""
    if chain is None:
        return 1  # no header: the export's own checks said so
    return report(check_anchors([chain], anchors_from(args)))


def verify_tournament(lines: Iterable[bytes], archives: Path | None, anchors: Anchors) -> int:
    """The tournament's chain, its games' archives at hand and its game lines against the anchors."""
    own, listed = tournament_chain(lines)
    if own is None:
        return 1
    chains: list[ExportChain] = [own]
    for game_id in dict.fromkeys(line.game_id for line in listed):
        archive = archives / f"{game_id}.jsonl.gz" if archives is not None else None
        if archive is not None and archive.is_file():
            try:
                chain = read_game_chain(archive)
            except (OSError, EOFError, ValueError):
                continue  # the export's own checks name an unreadable archive
            if chain is not None:
                chains.append(chain)
    found = check_anchors(chains, anchors, listed)
    seed = pairing_seed_problem(own)
    if seed is not None:
        found.problems.insert(0, seed)
    return report(found)


def report(found: AnchorReport, out: TextIO | None = None, err: TextIO | None = None) -> int:
    out, err = out or sys.stdout, err or sys.stderr
    # safe() again on whole lines: a reader's error may quote the file (an id is escaped where it is named).
    for problem in found.problems:
        err.write(f"ANCHOR FAILED: {safe(problem)}\n")
    for proven in found.proven:
        out.write(f"ANCHORED: {safe(proven)}\n")
    for unproven in found.unproven[:20]:
        out.write(f"NOT PROVEN: {safe(unproven)}\n")
    if len(found.unproven) > 20:
        out.write(f"NOT PROVEN: … and {len(found.unproven) - 20} more\n")
    return 1 if found.problems else 0


def tournament_paths(target: str, archives: str | None) -> tuple[Path, Path | None, Path | None]:
    """``tournament verify`` names a file or an export folder: the export, its archives folder, its log."""
    path = Path(target)
    if not path.is_dir():
        if not path.is_file():
            raise UserError(f"no such file or folder: {path}")
        return path, Path(archives) if archives else None, None
    exports = sorted(p for p in path.glob("*.jsonl") if p.name != LOG_FILE)
    if len(exports) != 1:
        raise UserError(f"{path}: a tournament export folder holds one <tournament id>.jsonl beside "
                        f"{LOG_FILE} and the games' archives, not {len(exports)}")  # fmt: skip
    log = path / LOG_FILE
    return exports[0], Path(archives) if archives else path, log if log.is_file() else None
