"""C2SP signed notes (c2sp.org/signed-note) with Ed25519 keys, and timestamped Ed25519 cosignatures
(c2sp.org/tlog-cosignature, type 0x04).

A note is a text ending in a newline, a blank line, then signature lines ``— <name> base64(key id || sig)``.
The log signs its checkpoints with type 0x01; a witness cosigns them with type 0x04 over
``cosignature/v1\\ntime <t>\\n`` followed by the checkpoint's text. Verifier keys (vkeys) are
``<name>+<hex key id>+base64(type || public key)``.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import struct

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

ED25519 = 0x01
COSIGNATURE_V1 = 0x04
MAX_SIGNATURES = 32
MAX_NOTE_BYTES = 1 << 16


class NoteError(ValueError):
    """A note that is malformed, or not signed by a key the reader trusts."""


def key_id(name: str, kind: int, public: bytes) -> bytes:
    return hashlib.sha256(name.encode() + b"\n" + bytes([kind]) + public).digest()[:4]


def _check_name(name: str) -> str:
    if not name or any(c.isspace() or c == "+" for c in name):
        raise NoteError(f"a key name must be non-empty, with no spaces or '+': {name!r}")
    return name


class Verifier:
    """A public key the reader trusts, by name and id (one signature type)."""

    def __init__(self, name: str, kind: int, public: bytes) -> None:
        if kind not in (ED25519, COSIGNATURE_V1) or len(public) != 32:
            raise NoteError("only Ed25519 keys (type 0x01) and Ed25519 cosigners (type 0x04) are supported")
        self.name, self.kind, self.public = _check_name(name), kind, public
        self.id = key_id(name, kind, public)
        self._key = Ed25519PublicKey.from_public_bytes(public)

    @classmethod
    def from_vkey(cls, vkey: str) -> Verifier:
        try:
            name, hex_id, material = vkey.strip().split("+", 2)  # base64 may hold "+" too
            raw = base64.b64decode(material, validate=True)
            verifier = cls(name, raw[0], raw[1:])
        except (ValueError, IndexError, binascii.Error) as error:
            raise NoteError(f"not a verifier key: {vkey.strip()[:80]!r} ({error})") from None
        if verifier.id.hex() != hex_id.lower():
            raise NoteError(f"the verifier key {name}'s id {hex_id} does not match its public key")
        return verifier

    @property
    def vkey(self) -> str:
        material = base64.b64encode(bytes([self.kind]) + self.public).decode()
        return f"{self.name}+{self.id.hex()}+{material}"

    def verify(self, message: bytes, signature: bytes) -> bool:
        try:
            self._key.verify(signature, message)
        except InvalidSignature:
            return False
        return True


class Signer:
    """A private Ed25519 key and the name it signs under."""

    def __init__(self, name: str, private: Ed25519PrivateKey, kind: int = ED25519) -> None:
        self._private = private
        public = private.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        self.verifier = Verifier(name, kind, public)

    @classmethod
    def generate(cls, name: str, kind: int = ED25519) -> Signer:
        return cls(name, Ed25519PrivateKey.generate(), kind)

    @classmethod
    def from_seed(cls, name: str, seed: bytes, kind: int = ED25519) -> Signer:
        return cls(name, Ed25519PrivateKey.from_private_bytes(seed), kind)

    @property
    def seed(self) -> bytes:
        """The 32-byte private key, for the key file."""
        return self._private.private_bytes(
            serialization.Encoding.Raw, serialization.PrivateFormat.Raw, serialization.NoEncryption()
        )

    @property
    def name(self) -> str:
        return self.verifier.name

    def sign(self, message: bytes) -> bytes:
        return self._private.sign(message)

    def signature_line(self, text: str) -> str:
        """The note's signature line for ``text`` (type 0x01)."""
        blob = self.verifier.id + self.sign(text.encode())
        return f"— {self.name} {base64.b64encode(blob).decode()}\n"

    def cosignature_line(self, text: str, timestamp: int) -> str:
        """A witness's timestamped cosignature line over a checkpoint's ``text`` (type 0x04)."""
        stamp = struct.pack(">Q", timestamp)
        blob = self.verifier.id + stamp + self.sign(cosigned_message(text, timestamp))
        return f"— {self.name} {base64.b64encode(blob).decode()}\n"


PRIVATE_KEY_PREFIX = "PRIVATE+KEY+"
KIND_NAMES = {ED25519: "an Ed25519 key", COSIGNATURE_V1: "an Ed25519 cosigner key (type 0x04)"}


class KeyIdMismatch(NoteError):
    """A private key line whose key id is not its key's."""


def private_key_line(signer: Signer) -> str:
    """A key file's line, in the private-key format of Go's ``golang.org/x/mod/sumdb/note``: the log's
    signing key and a witness's cosigner key are both kept so."""
    material = base64.b64encode(bytes([signer.verifier.kind]) + signer.seed).decode()
    return f"{PRIVATE_KEY_PREFIX}{signer.name}+{signer.verifier.id.hex()}+{material}\n"


def read_private_key(text: str, kind: int) -> Signer:
    """The signer of a private key line of type ``kind``; :class:`NoteError` says why not, and
    :class:`KeyIdMismatch` when only its key id is wrong."""
    try:
        if not text.startswith(PRIVATE_KEY_PREFIX):
            raise ValueError("not a PRIVATE+KEY line")
        name, hex_id, material = text.strip()[len(PRIVATE_KEY_PREFIX) :].split("+", 2)
        raw = base64.b64decode(material, validate=True)
        if raw[0] != kind or len(raw) != 33:
            raise ValueError(f"not {KIND_NAMES[kind]}")
        signer = Signer.from_seed(name, raw[1:], kind)
    except (ValueError, IndexError, binascii.Error) as exc:
        raise NoteError(str(exc)) from None
    if signer.verifier.id.hex() != hex_id.lower():
        raise KeyIdMismatch(f"the key id {hex_id} does not match the key")
    return signer


def cosigned_message(text: str, timestamp: int) -> bytes:
    return f"cosignature/v1\ntime {timestamp}\n".encode() + text.encode()


def sign(text: str, signer: Signer) -> str:
    """A signed note: ``text`` (ending in a newline), a blank line and the signer's line."""
    _check_text(text)
    return text + "\n" + signer.signature_line(text)


def _check_text(text: str) -> None:
    if not text.endswith("\n"):
        raise NoteError("a note's text must end with a newline")
    if any(ord(c) < 0x20 and c != "\n" for c in text):
        raise NoteError("a note must hold no control characters but newlines")


class Signature:
    """One signature line of a note: who, and the raw bytes after the key id."""

    def __init__(self, name: str, id: bytes, body: bytes, line: str) -> None:
        self.name, self.id, self.body, self.line = name, id, body, line


def split(note: str) -> tuple[str, list[Signature]]:
    """A note's text and its signature lines, unverified."""
    if len(note.encode()) > MAX_NOTE_BYTES:
        raise NoteError("the note is too large")
    cut = note.rfind("\n\n")
    if cut < 0 or not note.endswith("\n"):
        raise NoteError("a note is text, a blank line and signature lines")
    text, lines = note[: cut + 1], note[cut + 2 :].splitlines(keepends=True)
    _check_text(text)
    if not lines or len(lines) > MAX_SIGNATURES:
        raise NoteError("a note needs between 1 and 32 signature lines")
    return text, [_signature(line) for line in lines]


def _signature(line: str) -> Signature:
    parts = line.rstrip("\n").split(" ")
    if len(parts) != 3 or parts[0] != "—":
        raise NoteError(f"not a signature line: {line[:80]!r}")
    try:
        blob = base64.b64decode(parts[2], validate=True)
    except binascii.Error:
        raise NoteError(f"a signature line's signature is not base64: {line[:80]!r}") from None
    if len(blob) < 5:
        raise NoteError("a signature is too short")
    return Signature(_check_name(parts[1]), blob[:4], blob[4:], line)


def open_note(note: str, verifiers: list[Verifier]) -> tuple[str, list[Verifier]]:
    """The note's text and which of ``verifiers`` signed it; raises unless at least one did, or one fails.

    Signatures of unknown keys are ignored, as the spec says; a known key's bad signature rejects the note.
    """
    text, signatures = split(note)
    signed: list[Verifier] = []
    for signature in signatures:
        for verifier in verifiers:
            if (verifier.name, verifier.id) != (signature.name, signature.id):
                continue
            if not _verifies(verifier, text, signature.body):
                raise NoteError(f"{verifier.name}'s signature does not verify: the note was changed")
            signed.append(verifier)
    if not signed:
        raise NoteError("no signature of a trusted key: " + ", ".join(v.name for v in verifiers))
    return text, signed


def _verifies(verifier: Verifier, text: str, body: bytes) -> bool:
    if verifier.kind == ED25519:
        return verifier.verify(text.encode(), body)
    if len(body) != 8 + 64:
        return False
    (timestamp,) = struct.unpack(">Q", body[:8])
    return verifier.verify(cosigned_message(text, timestamp), body[8:])


def cosignature_time(signature: Signature) -> int:
    """The POSIX time a type 0x04 cosignature line states."""
    if len(signature.body) != 8 + 64:
        raise NoteError("not a timestamped cosignature")
    return int(struct.unpack(">Q", signature.body[:8])[0])
