"""``harbormaster witness URL``: its arguments, its key and state files, and trust on first use of the log's key.

What it prints on stdout is for the person starting it: the witness's key (for the operator's
``HARBORMASTER_LOG_WITNESSES``) and the log key it pinned; the rest is structlog on stderr.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

import structlog

from events.tlog import note
from events.tlog import witness as core
from services.cli_common import UserError
from services.witness import files
from services.witness.client import LogClient, LogKeyInfo, Unreachable
from services.witness.run import EXIT_FORKED, EXIT_UNREACHABLE, MAX_BACKOFF_S, Witness, follow

log = structlog.get_logger("witness")


def add_parser(sub: Any) -> None:
    p = sub.add_parser("witness", help="follow a server's log, cosign consistent checkpoints, catch forks")
    p.add_argument("url", help="the server, e.g. https://harbor.example")
    p.add_argument("--log-key", help="the log's verifier key (default: trust the server's on first use)")
    p.add_argument("--key", type=Path, help="this witness's key file (default: <data>/witness/witness.key)")
    p.add_argument("--name", help="this witness's name when its key is made (default: witness.local/<8 hex>)")
    p.add_argument("--state", type=Path, help="the state file (default: <data>/witness/<host>.json)")
    p.add_argument("--interval", type=float, default=2.0, help="seconds between two looks (default 2)")
    p.add_argument("--once", action="store_true", help="look once, then exit with the round's code")


def cmd_witness(args: argparse.Namespace, data_dir: Path) -> int:
    try:
        client = LogClient(args.url)
    except ValueError as error:
        raise UserError(str(error)) from None
    if not args.interval > 0:
        raise UserError("--interval must be a positive number of seconds")
    folder = data_dir / "witness"
    state_path: Path = args.state or folder / f"{_file_name(client.url)}.json"
    try:
        with files.locked(state_path):
            signer = _key(args.key or folder / "witness.key", args.name)
            state = _state(client, state_path, args.log_key, args.interval, args.once)
            if state.halted:
                log.error(
                    "log_refused_for_good", origin=state.origin, reason=state.halted, evidence=state.evidence
                )
                return EXIT_FORKED
            _check_listed(client, signer)
            return follow(Witness(client, signer, state_path, state), args.interval, args.once)
    except Unreachable:  # at first contact, with --once (the loop waits for the server)
        return EXIT_UNREACHABLE
    except (files.WitnessFileError, note.NoteError) as error:
        raise UserError(str(error)) from None
    except (
        OSError
    ) as error:  # a state it cannot write (a full disk, a read-only folder): stop, cosign nothing
        raise UserError(f"cannot keep the witness's files: {error}") from None


def _file_name(url: str) -> str:
    """``host_port_path`` of a server's address: one state file a log followed."""
    return "".join(c if c.isalnum() or c in ".-" else "_" for c in url.split("://", 1)[1])


def _key(path: Path, name: str | None) -> note.Signer:
    signer, made = files.load_or_make_key(path, name)
    print(f"witness key{' (made now)' if made else ''}: {signer.verifier.vkey}", flush=True)
    if made:
        print(f"  kept in {path}; the log's operator adds it to HARBORMASTER_LOG_WITNESSES", flush=True)
    return signer


def _state(
    client: LogClient, path: Path, log_key: str | None, interval_s: float, once: bool
) -> core.WitnessState:
    """The state on file (moved to ``log_key`` if that is a new key of the same log: a rotation), else a new
    one pinning ``log_key`` or, trusting on first use, the key the server names."""
    state = files.load_state(path)
    if state is not None:
        if log_key is None or note.Verifier.from_vkey(log_key).vkey == state.log_vkey:
            return state
        if note.Verifier.from_vkey(log_key).name != state.origin:
            raise files.WitnessFileError(f"{path} follows the log with key {state.log_vkey}, not {log_key}")
        state = core.rotate(
            state, log_key
        )  # the log's new key: its checkpoints must extend the cosigned tree
        files.save_state(path, state)
        print(f"log key rotated (the old one kept for what it signed): {state.log_vkey}", flush=True)
        return state
    if log_key is None:
        info = _first_contact(client, interval_s, once)
        if note.Verifier.from_vkey(info.vkey).name != info.origin:
            raise files.WitnessFileError(
                f"the server's key {info.vkey} is not named after its origin {info.origin}"
            )
        log_key = info.vkey
        print(f"log key pinned on first use (pass --log-key to pin one you checked): {log_key}", flush=True)
    state = core.pin(log_key)
    files.save_state(path, state)
    return state


def _first_contact(client: LogClient, interval_s: float, once: bool) -> LogKeyInfo:
    """The server's key, waited for with back-off (raises :class:`Unreachable` at once with ``once``)."""
    backoff = interval_s
    while True:
        try:
            return client.key()
        except Unreachable as error:
            log.warning("log_unreachable", error=str(error), retry_in_s=None if once else round(backoff, 1))
            if once:
                raise
        time.sleep(backoff)
        backoff = min(backoff * 2, max(MAX_BACKOFF_S, interval_s))


def _check_listed(client: LogClient, signer: note.Signer) -> None:
    """A warning when the server does not list this witness: its cosignatures would not be shown."""
    try:
        listed = client.key().witnesses
    except Unreachable:
        return
    if signer.verifier.vkey not in listed:
        log.warning("witness_not_listed", vkey=signer.verifier.vkey, setting="HARBORMASTER_LOG_WITNESSES")
