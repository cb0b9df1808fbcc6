"""``harbormaster sequencer|log-key|checkpoint|log-export``: the service's transparency log from the command line.

- ``sequencer``: the log's sequencer (``workers/log_sequencer.py``), as ``serve`` runs it.
- ``log-key [--rotate]``: the log's origin and verifier key (and the retired ones), from the key file; with
  ``--rotate``, a new key under the same origin (restart the sequencer: it signs the checkpoint again).
- ``checkpoint``: the latest signed checkpoint of the running service, with its witnesses' cosignatures.
- ``log-export``: the whole log as JSON lines: ``{"log": {origin, vkey, retired}}``, one ``{"index", "leaf"}``
  a leaf (base64), and ``{"checkpoint": note}`` over exactly those leaves.
"""

from __future__ import annotations

import argparse
import base64
import json
import sys
from collections.abc import Iterator

from events.log_store import LogError, LogStore
from services.bootstrap import Services
from services.cli_common import UserError
from services.config import Settings
from services.log_key import LogKeyError, load, rotate

VERBS = ("sequencer", "log-key", "checkpoint", "log-export")
EXPORT_CHUNK = 10_000


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    sub.add_parser("sequencer", help="the log's sequencer: logs every chain's heads and signs checkpoints")
    key = sub.add_parser("log-key", help="the log's origin and verifier key (vkey), and the retired ones")
    key.add_argument(
        "--rotate", action="store_true", help="make a new signing key; the old vkey is kept as retired"
    )
    sub.add_parser("checkpoint", help="the latest signed checkpoint of the running service")
    sub.add_parser("log-export", help="the whole log as JSON lines (leaves and the checkpoint over them)")


def cmd_log_key(settings: Settings, args: argparse.Namespace) -> int:
    try:
        key = rotate(settings) if args.rotate else load(settings, create=False)
    except LogKeyError as exc:
        raise UserError(str(exc)) from exc
    sys.stdout.write(json.dumps({"origin": key.origin, "vkey": key.vkey, "retired": key.retired}) + "\n")
    return 0


def cmd_sequencer(services: Services) -> int:
    from workers.log_sequencer import LogSequencer

    settings = services.settings
    try:
        key = load(settings)
        sequencer = LogSequencer(services.redis, key.signer, key.retired, settings.log.interval_s)
        sequencer.run()  # until SIGTERM or Ctrl-C (KeyboardInterrupt: the lease is released on the way out)
    except (LogKeyError, LogError) as exc:
        raise UserError(str(exc)) from exc
    return 0


def cmd_checkpoint(services: Services) -> int:
    store = LogStore(services.redis)
    text = store.cosigned_checkpoint(services.settings.log.witness_verifiers())
    if text is None:
        raise UserError("the log has no checkpoint yet: is the sequencer running (harbormaster serve)?")
    sys.stdout.write(text)
    return 0


def export_lines(store: LogStore) -> Iterator[str]:
    """The log export's lines: the checkpoint is read first, so the leaves are exactly the ones it covers."""
    published = store.published_key()
    checkpoint = store.checkpoint()
    if published is None or checkpoint is None:
        raise UserError("the log has no checkpoint yet: is the sequencer running (harbormaster serve)?")
    size = int(checkpoint.split("\n", 2)[1])
    yield json.dumps(
        {"log": {"origin": published.origin, "vkey": published.vkey, "retired": published.retired}}
    )
    for start in range(0, size, EXPORT_CHUNK):
        for offset, data in enumerate(store.leaves(start, min(size, start + EXPORT_CHUNK))):
            yield json.dumps({"index": start + offset, "leaf": base64.b64encode(data).decode()})
    yield json.dumps({"checkpoint": checkpoint})


def cmd_log_export(services: Services) -> int:
    for line in export_lines(LogStore(services.redis)):
        sys.stdout.write(line + "\n")
    return 0


def run_verb(services: Services, args: argparse.Namespace) -> int:
    if args.subcommand == "sequencer":
        return cmd_sequencer(services)
    if args.subcommand == "checkpoint":
        return cmd_checkpoint(services)
    return cmd_log_export(services)
