"""``verify --log URL``: the log of a running service, fetched over HTTP into a ``log.jsonl``.

``GET URL/api/log/key``, ``GET URL/api/log/checkpoint``, then ``GET URL/api/log/leaves`` a thousand at a time
up to the checkpoint's size. What the server sends is only its word until the checks run: ``verify`` then
holds the leaves to the checkpoint's root and the checkpoint to the key you pin (``--log-key``) and to any
checkpoint you kept (``--checkpoint``), exactly as for a file.
"""

from __future__ import annotations

import base64
import json
import tempfile
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from services.cli_common import UserError

CHUNK = 1000
TIMEOUT_S = 30.0


def is_url(value: str) -> bool:
    return value.startswith(("http://", "https://"))


def _get(url: str) -> bytes:
    try:
        with urllib.request.urlopen(url, timeout=TIMEOUT_S) as answer:
            body: bytes = answer.read()
            return body
    except (urllib.error.URLError, OSError, ValueError) as exc:
        raise UserError(f"cannot fetch the log from {url}: {exc}") from None


def _json(url: str) -> Any:
    try:
        return json.loads(_get(url))
    except ValueError:
        raise UserError(f"{url} did not answer with JSON") from None


def fetch_log(base: str, into: Path) -> Path:
    """Write the service's log at ``base`` (its address) to ``into/log.jsonl``; returns the file."""
    base = base.rstrip("/")
    keys = _json(f"{base}/api/log/key")
    checkpoint = _get(f"{base}/api/log/checkpoint").decode("utf-8", "replace")
    try:
        size = int(checkpoint.split("\n", 2)[1])
    except (IndexError, ValueError):
        raise UserError(f"{base}/api/log/checkpoint is not a checkpoint") from None
    path = into / "log.jsonl"
    with path.open("w") as out:
        out.write(json.dumps({"log": {k: keys.get(k) for k in ("origin", "vkey", "retired")}}) + "\n")
        for start in range(0, size, CHUNK):
            end = min(size, start + CHUNK)
            answer = _json(f"{base}/api/log/leaves?start={start}&end={end}")
            leaves = answer.get("leaves") if isinstance(answer, dict) else None
            if not isinstance(leaves, list) or len(leaves) != end - start:
                raise UserError(f"{base} sent {len(leaves or [])} leaves for {start}..{end}")
            for offset, leaf in enumerate(leaves):
                base64.b64decode(str(leaf), validate=True)
                out.write(json.dumps({"index": start + offset, "leaf": leaf}) + "\n")
        out.write(json.dumps({"checkpoint": checkpoint}) + "\n")
    return path


def fetched_log(base: str) -> Path:
    """The log at ``base`` in a temporary folder of this process (removed when it exits)."""
    folder = tempfile.TemporaryDirectory(prefix="harbormaster-log-")
    _KEPT.append(folder)
    return fetch_log(base, Path(folder.name))


_KEPT: list[tempfile.TemporaryDirectory[str]] = []
"""The fetched logs' folders, kept until the process ends (``TemporaryDirectory`` removes them then)."""
