"""The hash chain: ``hash = sha256(prev_hash ‖ canonical bytes)``, from the game header to the end."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

import msgspec

from events.codec import canonical_envelope, canonical_header
from events.envelope import Envelope, GameHeader


def genesis(header: GameHeader) -> str:
    """The ``prev_hash`` of event 1: the hash of the game's header (with its seed commitment)."""
    return hashlib.sha256(canonical_header(header)).hexdigest()


def link(envelope: Envelope) -> str:
    """The hash an envelope must carry, given its ``prev_hash`` and its other fields."""
    return hashlib.sha256(bytes.fromhex(envelope.prev_hash) + canonical_envelope(envelope)).hexdigest()


def sealed(envelope: Envelope) -> Envelope:
    """A newly built envelope with its ``hash`` filled in (set in place: no second copy of every event)."""
    msgspec.structs.force_setattr(envelope, "hash", link(envelope))
    return envelope


def first_broken_link(header: GameHeader, envelopes: Iterable[Envelope]) -> tuple[int, str] | None:
    """The first sequence number where the chain breaks, with the reason; ``None`` if it holds."""
    prev = genesis(header)
    expected_seq = 1
    for envelope in envelopes:
        if envelope.seq != expected_seq:
            return expected_seq, f"event {expected_seq} is missing (found {envelope.seq})"
        if envelope.prev_hash != prev:
            return envelope.seq, "prev_hash does not match the previous event's hash"
        if link(envelope) != envelope.hash:
            return envelope.seq, "hash does not match the event's content"
        prev = envelope.hash
        expected_seq += 1
    return None
