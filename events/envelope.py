"""Envelopes: what the event store keeps around each domain event, and the records beside it.

An envelope carries the event's type and version, its payload (the event's canonical msgpack), who and
which command caused it, when, and the hash chain link ``hash = sha256(prev_hash ‖ canonical bytes)``.
"""

from __future__ import annotations

from typing import Literal

import msgspec


class GameHeader(msgspec.Struct, frozen=True, kw_only=True):
    """What a game is, fixed at creation. Its canonical hash is the chain's genesis ``prev_hash``."""

    game_id: str
    game: str
    seats: int
    options: dict[str, object]
    seed_commitment: str
    created_ms: int


class Envelope(msgspec.Struct, frozen=True, kw_only=True):
    """One stored event. ``seed`` is set only on the event that ends the game: the seed revealed."""

    game_id: str
    seq: int
    type: str
    version: int
    payload: bytes
    command_id: str
    seat: int | None
    ts_ms: int
    prev_hash: str
    hash: str = ""
    seed: bytes | None = None


CommandStatus = Literal["applied", "rejected"]


class CommandRecord(msgspec.Struct, frozen=True, kw_only=True):
    """The recorded result of one command: applied with its event range, or rejected with the rule."""

    command_id: str
    seat: int | None
    command: bytes
    """The command as JSON, exactly as decided (so ``verify`` can decide it again)."""
    status: CommandStatus
    at_seq: int
    """The sequence number of the state the command was decided on."""
    first_seq: int = 0
    last_seq: int = 0
    code: str = ""
    message: str = ""
    ts_ms: int = 0
    """When it was decided."""
    submitted_ms: int = 0
    """When it was put on the bus."""


class InboxMessage(msgspec.Struct, frozen=True, kw_only=True):
    """A command on its way to a fold worker."""

    game_id: str
    command_id: str
    seat: int | None
    command: bytes
    """The command as JSON (``{"type": "Roll", ...}``), decoded by the worker with the game's types."""
    submitted_ms: int = 0
