"""The files an auditor brings to ``verify`` beside the export: the log (``log.jsonl``), a checkpoint kept
from earlier, and a player's receipts (``harbormaster-receipts/1``). Read only: what they prove is
``anchor``'s work. A file that cannot be read is an :class:`AnchorFileError`, one line for the user.

``log.jsonl``: ``{"log": {"origin", "vkey", "retired"}}``, then ``{"index": I, "leaf": base64}`` for each
leaf in order, then ``{"checkpoint": "<signed note>"}``.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import msgspec

from events.tlog.checkpoint import Checkpoint, parse
from events.tlog.note import NoteError, Verifier, open_note

RECEIPTS_FORMAT = "harbormaster-receipts/1"
HEAD_NAME = "log-head.jsonl"
"""In the log's folder beside the archives (``services/log_archive.py``): keys, the last leaves, the checkpoint."""


class AnchorFileError(ValueError):
    """A log, checkpoint or receipts file that cannot be read as one."""


class LogKeys(msgspec.Struct, frozen=True, kw_only=True):
    origin: str
    vkey: str
    retired: list[str] = msgspec.field(default_factory=list)
    """Keys the log signed with before a rotation: still valid for the checkpoints they signed."""


class LogFile(msgspec.Struct, frozen=True, kw_only=True):
    keys: LogKeys
    leaves: list[bytes]
    checkpoint: str


class Receipt(msgspec.Struct, frozen=True, kw_only=True):
    """A leaf of the log (a game's ``Head``, say) with its inclusion proof in a signed checkpoint."""

    stream: str = "game"
    id: str
    seed_commitment: str = ""
    leaf: bytes
    index: int
    checkpoint: str
    size: int
    proof: list[bytes]


class GameReceipts(msgspec.Struct, frozen=True, kw_only=True):
    seed_commitment: str = ""
    seen: list[tuple[int, str]] = msgspec.field(default_factory=list)
    """Each event the player was shown, as ``(seq, hash)``."""
    receipts: list[Receipt] = msgspec.field(default_factory=list)


class ReceiptsFile(msgspec.Struct, frozen=True, kw_only=True):
    format: str
    log: LogKeys
    games: dict[str, GameReceipts]


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise AnchorFileError(f"{path}: cannot be read ({exc.strerror or exc})") from None


def _lines(path: Path) -> list[bytes]:
    """A ``log.jsonl``'s lines, or a log folder's (``services/log_archive.py``) read as one: the head's keys,
    every segment's leaves in order, then the head's last leaves and checkpoint."""
    if not path.is_dir():
        return _read(path).splitlines()
    head = _read(path / HEAD_NAME).splitlines()
    lines = head[:1]
    for segment in sorted(path.glob("log-segment-*.jsonl")):
        lines += _read(segment).splitlines()
    return lines + head[1:]


def read_log(path: Path) -> LogFile:
    """The log export: its keys, every leaf in index order, and its signed checkpoint."""
    keys: LogKeys | None = None
    leaves: list[bytes] = []
    checkpoint: str | None = None
    for number, raw in enumerate(_lines(path), start=1):
        if not raw.strip():
            continue
        try:
            line: Any = msgspec.json.decode(raw)
            if not isinstance(line, dict):
                raise TypeError("not an object")
            if "log" in line:
                keys = msgspec.convert(line["log"], type=LogKeys)
            elif "checkpoint" in line:
                checkpoint = str(line["checkpoint"])
            else:
                index, data = int(line["index"]), base64.b64decode(str(line["leaf"]), validate=True)
                if index != len(leaves):
                    raise ValueError(f"leaf {index} comes where leaf {len(leaves)} should")
                leaves.append(data)
        except (msgspec.DecodeError, msgspec.ValidationError, ValueError, TypeError, KeyError) as exc:
            raise AnchorFileError(f"{path}: line {number} is not a log line: {exc}") from None
    if keys is None or checkpoint is None:
        raise AnchorFileError(f"{path}: a log export starts with its keys and ends with its checkpoint")
    return LogFile(keys=keys, leaves=leaves, checkpoint=checkpoint)


def read_checkpoint(path: Path) -> str:
    """A signed checkpoint note as ``GET /api/log/checkpoint`` serves it (or a JSON string of one)."""
    text = _read(path).decode("utf-8", "replace")
    if text.lstrip().startswith(("{", '"')):
        try:
            value: Any = msgspec.json.decode(text)
        except msgspec.DecodeError:
            value = None
        text = value.get("checkpoint", "") if isinstance(value, dict) else value
        if not isinstance(text, str):
            raise AnchorFileError(f"{path}: not a signed checkpoint")
    return text


def read_receipts(path: Path) -> ReceiptsFile:
    try:
        receipts = msgspec.json.decode(_read(path), type=ReceiptsFile)
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise AnchorFileError(f"{path}: not a receipts file: {exc}") from None
    if receipts.format != RECEIPTS_FORMAT:
        raise AnchorFileError(
            f"{path}: a receipts file of format {receipts.format!r}, not {RECEIPTS_FORMAT!r}"
        )
    return receipts


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def unb64(text: str) -> bytes:
    try:
        return base64.b64decode(text, validate=True)
    except binascii.Error:
        raise AnchorFileError(f"not base64: {text[:40]!r}") from None


def signed_checkpoint(note: str, keys: Sequence[Verifier], origin: str | None = None) -> Checkpoint:
    """A checkpoint once one of ``keys`` signed it (a rotated log's old keys sign what they signed before)."""
    text, _ = open_note(note, list(keys))
    checkpoint = parse(text)
    if origin is not None and checkpoint.origin != origin:
        raise NoteError(f"the checkpoint is of log {checkpoint.origin!r}, not {origin!r}")
    return checkpoint
