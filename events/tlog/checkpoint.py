"""C2SP checkpoints (c2sp.org/tlog-checkpoint): ``<origin>\\n<size>\\n<base64 root>\\n``, signed as a note."""

from __future__ import annotations

import base64
import binascii

import msgspec

from events.tlog.note import NoteError, Verifier, open_note


class Checkpoint(msgspec.Struct, frozen=True):
    origin: str
    size: int
    root: bytes

    @property
    def text(self) -> str:
        return f"{self.origin}\n{self.size}\n{base64.b64encode(self.root).decode()}\n"


def parse(text: str) -> Checkpoint:
    """A checkpoint's note text (unsigned: see :func:`open_checkpoint`)."""
    lines = text.split("\n")
    if len(lines) < 4 or lines[-1] != "" or any(not line for line in lines[:-1]):
        raise NoteError("a checkpoint is an origin, a size and a root hash, one a line")
    origin, size, root = lines[0], lines[1], lines[2]
    if not size.isdigit() or (size != "0" and size.startswith("0")):
        raise NoteError(f"a checkpoint's size is not a number: {size[:40]!r}")
    try:
        raw = base64.b64decode(root, validate=True)
    except binascii.Error:
        raise NoteError("a checkpoint's root hash is not base64") from None
    if len(raw) != 32:
        raise NoteError("a checkpoint's root hash is not 32 bytes")
    return Checkpoint(origin, int(size), raw)


def open_checkpoint(note: str, log: Verifier, origin: str | None = None) -> Checkpoint:
    """A signed checkpoint's content, once ``log``'s signature verifies (and its origin is ``origin``)."""
    text, _ = open_note(note, [log])
    checkpoint = parse(text)
    if origin is not None and checkpoint.origin != origin:
        raise NoteError(f"the checkpoint is of log {checkpoint.origin!r}, not {origin!r}")
    return checkpoint
