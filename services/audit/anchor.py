"""``verify --log --checkpoint --receipts --log-key --witness``: the export against what its operator
cannot take back. Offline and pure, like the rest of ``services.audit``.

1. The log (``--log``, a ``log.jsonl``): its leaves rebuilt into a Merkle tree whose root must be its signed
   checkpoint's. Signed by the key in the file, that proves only that the file is whole; signed by a key
   pinned from outside the export (``--log-key``), it binds the operator.
2. A checkpoint kept from earlier (``--checkpoint``; every receipt's checkpoint too): its signature by the
   log's key, each witness's cosignature asked for (``--witness``), and the log's first ``size`` leaves must
   hash to its root. An operator who rewrote anything before then, even holding the signing key and
   re-signing, cannot: "the log was rewritten before leaf N".
3. A player's receipts (``--receipts``, ``receipts``): each proof in its checkpoint, and each event the
   player was shown against the export.
4. Every chain of the export against its leaves (``log_match``): its start (header and seed commitment),
   every head up to its end, its command records' digest; no two chains share a seed commitment; a
   tournament's games are in the log and end where its results say.

Without an anchor it says what it could not prove.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import msgspec

from events.tlog.checkpoint import Checkpoint
from events.tlog.leaves import decode
from events.tlog.merkle import MemoryTree
from events.tlog.note import NoteError, Verifier, open_note
from services.audit.chains import ExportChain, Listed, safe, short
from services.audit.log_file import (
    AnchorFileError,
    LogFile,
    LogKeys,
    Receipt,
    read_checkpoint,
    read_log,
    read_receipts,
    signed_checkpoint,
)
from services.audit.log_match import LogIndex, describe, match_chains, match_listed
from services.audit.receipts import check_receipts

NO_ANCHOR = (
    "no checkpoint, receipt or pinned key given: the export is self-consistent, but its operator could have "
    "re-hashed and re-signed it"
)
FROM_EXPORT = (
    "the log's key was read from the export ({key}): a key taken from the export proves nothing against its "
    "operator (pin the key you trust with --log-key)"
)
FROM_RECEIPTS = (
    "the log's key was read from the receipts file ({key}), as the server gave it to the player: pin the key "
    "you trust with --log-key"
)


class Anchors(msgspec.Struct, kw_only=True):
    log: Path | None = None
    checkpoint: Path | None = None
    receipts: Path | None = None
    log_key: str | None = None
    witnesses: list[str] = msgspec.field(default_factory=list)


class AnchorReport(msgspec.Struct, kw_only=True):
    problems: list[str] = msgspec.field(default_factory=list)
    proven: list[str] = msgspec.field(default_factory=list)
    """What the anchors prove, each said plainly."""
    unproven: list[str] = msgspec.field(default_factory=list)
    """What they could not prove."""
    anchored: int = 0
    """How many leaves of the log an anchor binds."""

    @property
    def ok(self) -> bool:
        return not self.problems


class _Held(msgspec.Struct, kw_only=True):
    label: str
    checkpoint: Checkpoint


def check_anchors(
    chains: Sequence[ExportChain], anchors: Anchors, listed: Sequence[Listed] = ()
) -> AnchorReport:
    report = AnchorReport()
    if not (anchors.log or anchors.checkpoint or anchors.receipts or anchors.log_key):
        report.unproven.append(NO_ANCHOR)
        return report
    try:
        _check(chains, anchors, listed, report)
    except AnchorFileError as exc:
        report.problems.append(str(exc))
    return report


def _check(
    chains: Sequence[ExportChain], anchors: Anchors, listed: Sequence[Listed], report: AnchorReport
) -> None:
    log = read_log(anchors.log) if anchors.log else None
    receipts = read_receipts(anchors.receipts) if anchors.receipts else None
    keys = log.keys if log else receipts.log if receipts else None
    trusted = _trusted(anchors, keys, FROM_EXPORT if log else FROM_RECEIPTS, report)
    if trusted is None:
        return
    pinned = anchors.log_key is not None
    tree = _tree(log, trusted, pinned, anchors, report) if log else None
    held = _held_checkpoint(anchors, trusted, report)
    by_key = {(c.stream, c.header.game_id): c for c in chains}
    checked = check_receipts(receipts, by_key, trusted) if receipts else None
    if checked:
        report.problems += checked.problems
        report.unproven += checked.notes
        report.proven += checked.proven
        held += [_Held(label=label, checkpoint=cp) for label, cp in checked.checkpoints]
    if log is None or tree is None:
        report.anchored = 0
        if held:
            report.unproven.append("no log given (--log): only the receipts' own events are proven")
        return
    for one in held:
        _extends(tree, log.keys.origin, one, report)
    if checked:
        _same_leaves(log, checked.receipts, report)
    _match(chains, listed, log, report)


def _trusted(
    anchors: Anchors, keys: LogKeys | None, said: str, report: AnchorReport
) -> list[Verifier] | None:
    """The keys a checkpoint must be signed by: the pinned one, else the export's own (said so)."""
    try:
        if anchors.log_key:
            return [Verifier.from_vkey(anchors.log_key)]
        if keys is None:
            report.problems.append("no log key: give the log (--log), receipts (--receipts) or --log-key")
            return None
        report.unproven.append(said.format(key=safe(keys.vkey.split("+")[0])))
        return [Verifier.from_vkey(vkey) for vkey in [keys.vkey, *keys.retired]]
    except NoteError as exc:
        report.problems.append(f"the log key: {exc}")
        return None


def _tree(
    log: LogFile, trusted: list[Verifier], pinned: bool, anchors: Anchors, report: AnchorReport
) -> MemoryTree | None:
    """The log's tree, once its own checkpoint is signed by its key (and the pinned one) and has its root."""
    tree = MemoryTree()
    for data in log.leaves:
        tree.append(data)
    try:
        own = signed_checkpoint(
            log.checkpoint,
            [Verifier.from_vkey(log.keys.vkey), *map(Verifier.from_vkey, log.keys.retired)],
            log.keys.origin,
        )
        if pinned:
            signed_checkpoint(log.checkpoint, trusted)
    except NoteError as exc:
        report.problems.append(f"the log's checkpoint: {exc}")
        return None
    if own.size > tree.size:
        report.problems.append(f"the log's checkpoint covers {own.size} leaves, the file holds {tree.size}: "
                               "leaves are missing")  # fmt: skip
        return None
    if tree.root(own.size) != own.root:
        report.problems.append(f"the log's leaves do not hash to its checkpoint's root (size {own.size}): a leaf "
                               "was changed")  # fmt: skip
        return None
    if pinned:
        report.anchored = own.size
        report.proven.append(f"the log's {own.size} leaves are signed by the key you pinned")
    if anchors.witnesses and anchors.checkpoint is None:
        _witnessed(log.checkpoint, anchors.witnesses, "the log's checkpoint", report)
    return tree


def _held_checkpoint(anchors: Anchors, trusted: list[Verifier], report: AnchorReport) -> list[_Held]:
    if anchors.checkpoint is None:
        return []
    note = read_checkpoint(anchors.checkpoint)
    try:
        checkpoint = signed_checkpoint(note, trusted)
    except NoteError as exc:
        report.problems.append(f"the checkpoint you hold ({anchors.checkpoint.name}) is not the log's: {exc}")
        return []
    _witnessed(note, anchors.witnesses, "the checkpoint you hold", report)
    return [_Held(label="the checkpoint you hold", checkpoint=checkpoint)]


def _witnessed(note: str, witnesses: list[str], what: str, report: AnchorReport) -> None:
    for vkey in witnesses:
        try:
            witness = Verifier.from_vkey(vkey)
            open_note(note, [witness])
        except NoteError as exc:
            report.problems.append(f"{what} is not cosigned by witness {safe(vkey.split('+')[0])}: {exc}")
        else:
            report.proven.append(f"{what} is cosigned by witness {safe(witness.name)}")


def _extends(tree: MemoryTree, origin: str, held: _Held, report: AnchorReport) -> None:
    """The log's first ``size`` leaves must be the ones ``held`` signed."""
    cp = held.checkpoint
    said = f"{held.label} (size {cp.size}, root {short(cp.root.hex())})"
    if cp.origin != origin:
        report.problems.append(f"{said} is of log {safe(cp.origin)!r}, not {safe(origin)!r}")
    elif cp.size > tree.size:
        report.problems.append(f"the log has only {tree.size} leaves: it does not extend {said} (it was cut "
                               "back, or exported before that checkpoint: export the log again)")  # fmt: skip
    elif tree.root(cp.size) != cp.root:
        report.problems.append(f"the log was rewritten before leaf {cp.size}: it does not extend {said}")
    else:
        report.anchored = max(report.anchored, cp.size)
        report.proven.append(f"the log's first {cp.size} leaves are the ones in {held.label}")


def _same_leaves(log: LogFile, receipts: Sequence[Receipt], report: AnchorReport) -> None:
    """The log's leaf at each receipt's index is the receipt's: if not, say what each holds."""
    for receipt in receipts:
        if receipt.index < len(log.leaves) and log.leaves[receipt.index] != receipt.leaf:
            index = LogIndex([log.leaves[receipt.index]])
            report.problems.append(
                f"leaf {receipt.index} of the log is not the one in the player's receipt (the receipt: "
                f"{describe(decode(receipt.leaf))}; the log: {describe(index.leaves[0])})"
            )


def _match(
    chains: Sequence[ExportChain], listed: Sequence[Listed], log: LogFile, report: AnchorReport
) -> None:
    index = LogIndex(log.leaves)
    anchored = report.anchored
    anchor_failed = bool(report.problems)
    problems, unproven = match_chains(chains, index, anchored or index.size)
    report.problems += problems + match_listed(listed, index)
    if not anchored:
        report.unproven.append(NO_ANCHOR.replace("the export is", "the export and its log are"))
        return
    report.unproven += unproven
    if not anchor_failed:  # a log that does not extend what you hold proves nothing by matching it
        matched = sum(not any(p.startswith(f"{c.name}:") for p in problems) for c in chains)
        report.proven.append(f"{matched} of {len(chains)} chains match the log's leaves")
