"""A receipt: a leaf of the log, its inclusion proof, and the signed checkpoint it is proven under; and the
test that two receipts for one game cannot both be true (a split view, caught by the players themselves).

A receipt proves what the server committed to when it was given. Two players who compare theirs catch a
server that showed them different histories of one game: either the log signed two roots for one tree
size, or it logged two hashes for one event of the game's chain (an honest chain has one hash a ``seq``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import msgspec

from events.tlog import leaves, merkle, note
from events.tlog.checkpoint import Checkpoint, open_checkpoint


class Receipt(msgspec.Struct, frozen=True, kw_only=True):
    """A receipt's proving parts; a JSON receipt with more fields (the game's id, the size) decodes to it."""

    checkpoint: str
    """The log's signed checkpoint note (cosignatures may follow its signature)."""
    index: int
    leaf: bytes
    """The leaf's data (base64 in JSON): a ``leaves.Head`` or ``leaves.Start``."""
    proof: list[bytes]
    """The leaf's inclusion proof in the checkpoint's tree."""


class Proven(Protocol):
    """What :func:`conflicting_heads` reads of a receipt (``services/audit/log_file.Receipt`` has it too)."""

    @property
    def checkpoint(self) -> str: ...
    @property
    def index(self) -> int: ...
    @property
    def leaf(self) -> bytes: ...
    @property
    def proof(self) -> Sequence[bytes]: ...


class ReceiptError(ValueError):
    """A receipt that proves nothing: not signed by the log, or its leaf not in its tree."""


def open_receipt(receipt: Proven, log: note.Verifier) -> tuple[Checkpoint, leaves.Leaf]:
    """The checkpoint and leaf a receipt proves, once the log's signature and the inclusion proof verify."""
    try:
        checkpoint = open_checkpoint(receipt.checkpoint, log, log.name)
        leaf = leaves.decode(receipt.leaf)
        merkle.verify_inclusion(
            merkle.leaf_hash(receipt.leaf), receipt.index, checkpoint.size, receipt.proof, checkpoint.root
        )
    except (note.NoteError, merkle.ProofError, msgspec.DecodeError, msgspec.ValidationError) as error:
        raise ReceiptError(f"the receipt proves nothing: {error}") from None
    return checkpoint, leaf


def conflicting_heads(a: Proven, b: Proven, log: note.Verifier) -> str | None:
    """Why two receipts for one chain cannot both be true, or ``None`` when they agree (or cannot be
    compared offline: two sizes and two different events). Raises :class:`ReceiptError` for a receipt that
    proves nothing or two receipts of different chains."""
    (cp_a, leaf_a), (cp_b, leaf_b) = open_receipt(a, log), open_receipt(b, log)
    chain_a, chain_b = _chain(leaf_a), _chain(leaf_b)
    if chain_a != chain_b:
        raise ReceiptError(f"the receipts are of two chains: {chain_a[1]} and {chain_b[1]}")
    if cp_a.size == cp_b.size and cp_a.root != cp_b.root:
        return f"the log signed two different trees of size {cp_a.size}: it showed two histories"
    head_a, head_b = _event(leaf_a), _event(leaf_b)
    # A seal and a hash of one event are not comparable without the seed: only two of a kind conflict.
    if head_a[:2] == head_b[:2] and head_a[2] != head_b[2]:
        what = "the start" if head_a[0] < 0 else f"event {head_a[0]}"
        return (
            f"the log holds two {PLURAL[head_a[1]]} for {what} of {chain_a[0]} {chain_a[1]}: "
            f"{head_a[2][:16]}… and {head_b[2][:16]}…"
        )
    return None


PLURAL = {"hash": "hashes", "seal": "seals"}


def _chain(leaf: leaves.Leaf) -> tuple[str, str]:
    if isinstance(leaf, leaves.Head | leaves.Sealed | leaves.Start):
        return leaf.stream, leaf.id
    raise ReceiptError(f"a receipt's leaf is a chain's start or head, not a {type(leaf).__name__} leaf")


def _event(leaf: leaves.Leaf) -> tuple[int, str, str]:
    """``(seq, "hash" or "seal", value)`` of the event the leaf binds (a start binds the genesis, before event 0)."""
    if isinstance(leaf, leaves.Head):
        return leaf.seq, "hash", leaf.hash
    if isinstance(leaf, leaves.Sealed):
        return leaf.seq, "seal", leaf.seal
    assert isinstance(leaf, leaves.Start)
    return -1, "hash", leaf.genesis
