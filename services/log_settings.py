"""Settings of the service's transparency log: read by ``services/config.py``'s ``Settings.from_env`` (the one
place that reads the environment), which hands them down as ``Settings.log``; a bad value is refused at start
with one line naming the variable.

- ``HARBORMASTER_LOG_INTERVAL`` (1): seconds between two rounds of the sequencer (``workers/log_sequencer.py``).
- ``HARBORMASTER_LOG_ORIGIN``: the log's name (its checkpoints' origin line and its key's name); default: the
  name kept with the key, made at first start as ``harbormaster.local/<8 hex of the public key's SHA-256>``.
- ``HARBORMASTER_LOG_KEY_FILE``: the signing key's file (default ``<data>/log-signing.key``, made at first
  start); a file named here must exist: a typo must not start a log under a new key.
- ``HARBORMASTER_LOG_WITNESSES``: the witnesses whose cosignatures the gateway takes and shows, as their
  verifier keys (type 0x04, ``c2sp.org/tlog-cosignature``), comma-separated.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path

import msgspec

from events.tlog import note

MAX_INTERVAL_S = 3600.0


class LogSettingError(ValueError):
    """A log setting that cannot be used: the message names the variable."""


class LogSettings(msgspec.Struct, frozen=True, kw_only=True):
    interval_s: float = 1.0
    origin: str | None = None
    key_file: Path | None = None
    witnesses: tuple[str, ...] = ()

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> LogSettings:
        raw_file = env.get("HARBORMASTER_LOG_KEY_FILE", "").strip()
        return cls(
            interval_s=_interval(env.get("HARBORMASTER_LOG_INTERVAL", "").strip()),
            origin=_origin(env.get("HARBORMASTER_LOG_ORIGIN", "").strip()),
            key_file=Path(raw_file).resolve() if raw_file else None,
            witnesses=_witnesses(env.get("HARBORMASTER_LOG_WITNESSES", "")),
        )

    def witness_verifiers(self) -> list[note.Verifier]:
        return [note.Verifier.from_vkey(vkey) for vkey in self.witnesses]


def _interval(raw: str) -> float:
    if not raw:
        return 1.0
    try:
        value = float(raw)
    except ValueError:
        raise LogSettingError(
            f"HARBORMASTER_LOG_INTERVAL must be a number of seconds, not {raw[:40]!r}"
        ) from None
    if not (math.isfinite(value) and 0 < value <= MAX_INTERVAL_S):
        raise LogSettingError(
            f"HARBORMASTER_LOG_INTERVAL must be above 0 and at most {MAX_INTERVAL_S:g} seconds"
        )
    return value


def _origin(raw: str) -> str | None:
    if not raw:
        return None
    if len(raw) > 200 or not raw.isprintable() or any(c.isspace() or c == "+" for c in raw):
        raise LogSettingError(
            f"HARBORMASTER_LOG_ORIGIN must be printable, at most 200 characters, without spaces or '+': {raw[:40]!r}"
        )
    return raw


def _witnesses(raw: str) -> tuple[str, ...]:
    vkeys = tuple(part.strip() for part in raw.split(",") if part.strip())
    for vkey in vkeys:
        try:
            verifier = note.Verifier.from_vkey(vkey)
        except note.NoteError as exc:
            raise LogSettingError(f"HARBORMASTER_LOG_WITNESSES: {exc}") from None
        if verifier.kind != note.COSIGNATURE_V1:
            raise LogSettingError(
                f"HARBORMASTER_LOG_WITNESSES: {verifier.name}'s key is not a cosigner's (type 0x04)"
            )
    return vkeys
