"""``harbormaster tournament export ID --to FOLDER``: what an auditor takes away, in one folder.

``<id>.jsonl`` (the tournament's export), each of its games' archives ``<game id>.jsonl.gz`` that is written,
and ``log.jsonl``: the service's log (``harbormaster log-export``) read after the export, so its checkpoint
covers every head the sequencer had logged of these chains by then. ``tournament verify FOLDER`` reads all
three; with a checkpoint kept from earlier (``--checkpoint``) or the log's key pinned (``--log-key``) it
proves the export is the history the server committed to.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from events.log_store import LogStore
from services import tournament_service as service
from services.archive import archived
from services.archive_conflict import conflict_files
from services.bootstrap import Services
from services.cli_common import UserError
from services.log_cli import export_lines as log_lines

LOG_FILE = "log.jsonl"


def write_folder(services: Services, tid: str, folder: Path) -> dict[str, Any]:
    """Write the folder; returns what is in it (and which games had no archive to copy)."""
    folder.mkdir(parents=True, exist_ok=True)
    export = folder / f"{tid}.jsonl"
    export.write_bytes(b"".join(line + b"\n" for line in service.export_lines(services, tid)))
    game_ids = list(service.game_ids(service.load(services, tid)))
    files = archived(services.redis, game_ids)
    copied, missing = [], []
    for game_id in game_ids:
        source = Path(files.get(game_id, {}).get("file") or "")
        target = folder / f"{game_id}.jsonl.gz"
        if source.is_file():
            if source.resolve() != target.resolve():
                shutil.copyfile(source, target)
            for other in conflict_files(
                source
            ):  # a second archive: the auditor sees both (tournament verify)
                if other.resolve() != (folder / other.name).resolve():
                    shutil.copyfile(other, folder / other.name)
            copied.append(game_id)
        else:
            missing.append(game_id)
    summary: dict[str, Any] = {"folder": str(folder), "export": export.name, "archives": len(copied),
                               "not_archived": missing}  # fmt: skip
    try:
        lines = list(log_lines(LogStore(services.redis)))
    except UserError as exc:  # no log yet: the folder verifies, unanchored, and says so
        summary["log"] = None
        summary["log_missing"] = str(exc)
        return summary
    (folder / LOG_FILE).write_text("".join(line + "\n" for line in lines))
    summary["log"] = LOG_FILE
    return summary
