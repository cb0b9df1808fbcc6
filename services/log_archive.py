"""The log kept with the games: ``<archive dir>/log/``, written by ``serve`` as the log grows.

- ``log-segment-<first leaf, 12 digits>.jsonl``: 4,096 leaves each (``{"index", "leaf"}`` lines, as in
  ``log.jsonl``), written once a segment is whole and never again (the log is append-only: a segment's
  leaves never change, and one that is there is not replaced);
- ``log-head.jsonl``: the log's keys, the leaves past the last whole segment up to the newest checkpoint,
  and that checkpoint; replaced (whole, by a rename) at each pass.

``verify --log <archive dir>/log`` reads the folder as one ``log.jsonl`` (``services/audit/log_file.py``).
With ``HARBORMASTER_ARCHIVE_BUCKET`` each segment is uploaded when written, and the head with it, so the
bucket holds the log up to its last whole segment at least. Redis keeps the log too (durable as the game
data is); this copy is for auditors, and for the day Redis is gone.
"""

from __future__ import annotations

import base64
import json
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

import structlog

from events.log_store import LogStore
from services.archive_bucket import ArchiveBucket, BucketError
from services.audit.log_file import HEAD_NAME

log = structlog.get_logger("log_archive")

SEGMENT = 4096


def segment_name(first: int) -> str:
    return f"log-segment-{first:012d}.jsonl"


def _leaf_lines(first: int, leaves: Iterable[bytes]) -> list[str]:
    return [
        json.dumps({"index": first + n, "leaf": base64.b64encode(data).decode()})
        for n, data in enumerate(leaves)
    ]


def _write_whole(path: Path, lines: Iterable[str]) -> None:
    """Write ``path`` under a temporary name, flush it to disk and rename it: never half a file."""
    handle, partial = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
    try:
        with os.fdopen(handle, "w") as out:
            out.writelines(line + "\n" for line in lines)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(partial, 0o644)
        os.replace(partial, path)
    except BaseException:
        Path(partial).unlink(missing_ok=True)
        raise


def archive_log(store: LogStore, folder: Path, bucket: ArchiveBucket | None = None) -> int:
    """Bring ``folder`` up to the log's newest checkpoint; returns how many segments were written."""
    published, checkpoint = store.published_key(), store.checkpoint()
    if published is None or checkpoint is None:
        return 0
    size = int(checkpoint.split("\n", 2)[1])
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    whole = size - size % SEGMENT
    for first in range(0, whole, SEGMENT):
        path = folder / segment_name(first)
        if path.exists():
            continue  # written before: the log is append-only, so it is the same
        _write_whole(path, _leaf_lines(first, store.leaves(first, first + SEGMENT)))
        written.append(path)
    keys = json.dumps(
        {"log": {"origin": published.origin, "vkey": published.vkey, "retired": published.retired}}
    )
    head, last = folder / HEAD_NAME, json.dumps({"checkpoint": checkpoint})
    if not (head.exists() and head.read_text().splitlines()[-1:] == [last] and not written):
        # Written again only when the log moved: serve's pass comes every few seconds, mostly to no change.
        tail = _leaf_lines(whole, store.leaves(whole, size)) if size > whole else []
        _write_whole(head, [keys, *tail, last])
    if bucket is not None and written:
        _upload(bucket, [*written, head])
    return len(written)


def _upload(bucket: ArchiveBucket, paths: list[Path]) -> None:
    for path in paths:
        try:
            bucket.upload(path)
        except BucketError as exc:  # the next segment's upload sends the head again; Redis still holds it all
            log.error("log_segment_not_uploaded", file=path.name, error=str(exc))
