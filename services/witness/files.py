"""A witness's files: its cosigner key (made once, 0600), its state (replaced durably), its evidence.

The state is what makes a witness worth having: after a crash it must still know the last checkpoint it
cosigned, or it could cosign a second, inconsistent head. So it is written to a temporary file, fsynced,
renamed over the old one and the folder fsynced, before the cosignature leaves the machine; a lock on
``<state>.lock`` keeps a second witness process off the same state.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import secrets
from collections.abc import Iterator
from pathlib import Path

import msgspec

from events.tlog import note
from events.tlog.witness import WitnessState

DEFAULT_HOST = "witness.local"


class WitnessFileError(Exception):
    """A key or state file that cannot be read, made or locked: the user's to fix."""


# --- the cosigner key -----------------------------------------------------------------------------------------


def default_name() -> str:
    return f"{DEFAULT_HOST}/{secrets.token_hex(4)}"


def encode_key(signer: note.Signer) -> str:
    """The key file's line, in the private-key format of Go's ``golang.org/x/mod/sumdb/note``."""
    return note.private_key_line(signer)


def decode_key(text: str, where: Path) -> note.Signer:
    try:
        return note.read_private_key(text, note.COSIGNATURE_V1)
    except note.KeyIdMismatch as error:
        raise WitnessFileError(f"{where}: {error}") from None
    except note.NoteError as error:
        raise WitnessFileError(f"{where} is not a witness key: {error}") from None


def load_or_make_key(path: Path, name: str | None) -> tuple[note.Signer, bool]:
    """The witness's key from ``path``, made there (mode 0600, never over another) when absent; and
    whether it was made now."""
    try:
        signer = decode_key(path.read_text(), path)
    except FileNotFoundError:
        signer = note.Signer.generate(name or default_name(), note.COSIGNATURE_V1)
        _create(path, encode_key(signer).encode())
        return signer, True
    except OSError as error:
        raise WitnessFileError(f"cannot read the witness key {path}: {error}") from None
    if name is not None and name != signer.name:
        raise WitnessFileError(f"{path} is the key of witness {signer.name}, not {name}")
    return signer, False


def _create(path: Path, data: bytes) -> None:
    """Write a new file whole, readable by its owner only; refuses to replace one (O_EXCL)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        raise WitnessFileError(f"{path} appeared while this witness made its key: start it again") from None
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    _sync_folder(path.parent)


# --- the state and the evidence -------------------------------------------------------------------------------


def load_state(path: Path) -> WitnessState | None:
    try:
        return msgspec.json.decode(path.read_bytes(), type=WitnessState)
    except FileNotFoundError:
        return None
    except (OSError, msgspec.DecodeError, msgspec.ValidationError) as error:
        raise WitnessFileError(f"cannot read the witness state {path}: {error}") from None


def save_state(path: Path, state: WitnessState) -> None:
    """Replace the state durably: temporary file, fsync, rename, fsync of the folder."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, msgspec.json.format(msgspec.json.encode(state)) + b"\n")
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(temporary, path)
    _sync_folder(path.parent)


def write_evidence(state_path: Path, text: str, stamp: str) -> Path:
    """``fork-<stamp>.txt`` beside the state (a new name if that one exists), written durably."""
    for attempt in range(100):
        path = state_path.with_name(f"fork-{stamp}{f'-{attempt}' if attempt else ''}.txt")
        with contextlib.suppress(WitnessFileError):
            if not path.exists():
                _create(path, text.encode())
                return path
    raise WitnessFileError(f"cannot write the evidence beside {state_path}")


@contextlib.contextmanager
def locked(state_path: Path) -> Iterator[None]:
    """Hold ``<state>.lock`` while the witness runs: two witnesses on one state could cosign two heads."""
    state_path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(state_path.with_name(state_path.name + ".lock"), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise WitnessFileError(f"another witness is running on {state_path}") from None
        yield
    finally:
        os.close(fd)


def _sync_folder(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
