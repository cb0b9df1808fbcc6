"""The log's Ed25519 signing key: made at first start in the data folder, or given by a setting, and rotated.

The key file holds one line in the private-key format of Go's ``golang.org/x/mod/sumdb/note``
(``PRIVATE+KEY+<name>+<hex key id>+<base64(0x01 || 32-byte seed)>``), readable by its owner only (0600).
Its name is the log's origin, fixed when the key is made (``HARBORMASTER_LOG_ORIGIN``, else
``harbormaster.local/<first 8 hex of the public key's SHA-256>``) and kept across rotations: witnesses and
auditors follow a log by its origin.

Made at most once: the file is written whole under a name of its own and then hard-linked to its final name,
which fails if another process got there first; that process's key is then read, so two processes starting
at once end with one key. ``rotate`` makes a new key under the same name and appends the old one's vkey to
``<key file>.retired``: old keys stay valid for the checkpoints they signed, and are listed with the key.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from pathlib import Path

import msgspec

from events.tlog import note
from services.cli_common import UserError
from services.config import Settings

KEY_FILE_NAME = "log-signing.key"
DEFAULT_HOST = "harbormaster.local"


class LogKeyError(UserError):
    """The key file is missing where it was named, unreadable, or not a key."""


class LogKey(msgspec.Struct, frozen=True):
    signer: note.Signer
    retired: list[str]
    """The vkeys of the keys this one replaced, oldest first."""
    path: Path

    @property
    def origin(self) -> str:
        return self.signer.name

    @property
    def vkey(self) -> str:
        return self.signer.verifier.vkey


def key_path(settings: Settings) -> Path:
    return settings.log.key_file or settings.data_dir / KEY_FILE_NAME


def retired_path(path: Path) -> Path:
    return path.with_name(path.name + ".retired")


def default_origin(signer: note.Signer) -> str:
    return f"{DEFAULT_HOST}/{hashlib.sha256(signer.verifier.public).hexdigest()[:8]}"


def encode_key(signer: note.Signer) -> str:
    """The key file's line (Go's ``note`` private-key format)."""
    return note.private_key_line(signer)


def decode_key(text: str, where: Path) -> note.Signer:
    try:
        return note.read_private_key(text, note.ED25519)
    except note.KeyIdMismatch as exc:
        raise LogKeyError(f"{where}: {exc}") from None
    except note.NoteError as exc:
        raise LogKeyError(f"{where} is not a log signing key: {exc}") from None


def load(settings: Settings, create: bool = True) -> LogKey:
    """The log's key: the file's, made first if it is the data folder's and missing (``create``)."""
    path = key_path(settings)
    try:
        text = path.read_text()
    except FileNotFoundError:
        if settings.log.key_file is not None or not create:
            raise LogKeyError(f"no log signing key at {path}") from None
        text = _create(path, settings.log.origin)
    except OSError as exc:
        raise LogKeyError(f"cannot read the log signing key {path}: {exc}") from None
    signer = decode_key(text, path)
    if settings.log.origin and settings.log.origin != signer.name:  # the setting names the log
        signer = note.Signer.from_seed(settings.log.origin, signer.seed)
    return LogKey(signer, _retired(path), path)


def _create(path: Path, origin: str | None) -> str:
    """Write a new key at ``path`` unless another process wrote one first; the text of the one that won."""
    signer = note.Signer.generate("unnamed")
    signer = note.Signer.from_seed(origin or default_origin(signer), signer.seed)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = _write_private(path, encode_key(signer))
    try:
        os.link(partial, path)  # atomic and exclusive: fails if a key is there already
    except FileExistsError:
        pass
    finally:
        partial.unlink()
    return path.read_text()


def _write_private(path: Path, text: str) -> Path:
    """``text`` in a new file (0600) beside ``path``, flushed to disk; returns its name."""
    partial = path.with_name(f".{path.name}.{os.getpid()}.{os.urandom(4).hex()}")
    handle = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with open(handle, "w") as out:
        out.write(text)
        out.flush()
        os.fsync(out.fileno())
    return partial


def _retired(path: Path) -> list[str]:
    try:
        lines = retired_path(path).read_text().splitlines()
    except FileNotFoundError:
        return []
    return [line.strip() for line in lines if line.strip()]


def rotate(settings: Settings) -> LogKey:
    """A new key under the log's name; the old one's vkey is appended to the retired list first (a crash
    between the two leaves the old key in use and listed as retired, which is harmless)."""
    old = load(settings)
    path = old.path
    with open(os.open(retired_path(path), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644), "a") as out:
        out.write(old.vkey + "\n")
        out.flush()
        os.fsync(out.fileno())
    fresh = note.Signer.from_seed(old.origin, note.Signer.generate(old.origin).seed)
    partial = _write_private(path, encode_key(fresh))
    try:
        os.replace(partial, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            partial.unlink()
    return load(settings)
