"""The hash chain: ``hash = sha256(prev_hash ‖ canonical bytes)``, from the game header to the end.

Pure: sealing a command's events into envelopes (:func:`envelopes_for`) and checking a chain need no Redis;
the store appends what is sealed here.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from typing import Any

import msgspec

from events import codec
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


def envelopes_for(
    game_id: str,
    events: Sequence[Any],
    at_seq: int,
    prev_hash: str,
    command_id: str,
    seat: int | None,
    ts: int,
    reveal_seed: bytes | None = None,
) -> list[Envelope]:
    """Seal a command's events into chained envelopes numbered from ``at_seq + 1``.

    ``reveal_seed`` goes on the last envelope: it is the event that ends the game.
    """
    sealed_envelopes = []
    last = len(events)
    for offset, event in enumerate(events, start=1):
        event_type, version = codec.event_type(event)
        envelope = sealed(
            Envelope(
                game_id=game_id,
                seq=at_seq + offset,
                type=event_type,
                version=version,
                payload=codec.encode_event(event),
                command_id=command_id,
                seat=seat,
                ts_ms=ts,
                prev_hash=prev_hash,
                seed=reveal_seed if offset == last else None,
            )
        )
        prev_hash = envelope.hash
        sealed_envelopes.append(envelope)
    return sealed_envelopes


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
