"""Envelopes: what the event store keeps around each domain event, and the records beside it.

An envelope carries the event's type and version, its payload (the event's canonical msgpack), who and
which command caused it, when, and the hash chain link ``hash = sha256(prev_hash ‖ canonical bytes)``.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from events import keys


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

Origin = Literal["seat", "bot", "clock", "server"]
"""Who a command comes from; with the seat it scopes the command id (``keys.result_field``). ``seat`` is a
player (HTTP, WebSocket, CLI), ``bot`` a server bot playing a seat, ``server`` a game's set-up, ``clock``
reserved for timed moves. Only the server sets it: a client never chooses its origin."""


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
    origin: Origin = "seat"
    """Who sent it (records written before origins existed were all players' or the set-up's)."""

    @property
    def result_field(self) -> str:
        """Its idempotency key (``keys.result_field``)."""
        return keys.result_field(self.origin, self.seat, self.command_id)


class InboxMessage(msgspec.Struct, frozen=True, kw_only=True):
    """A command on its way to a fold worker."""

    game_id: str
    command_id: str
    seat: int | None
    command: bytes
    """The command as JSON (``{"type": "Roll", ...}``), decoded by the worker with the game's types."""
    submitted_ms: int = 0
    origin: Origin = "seat"


def is_setup(envelope: Envelope, first: Envelope) -> bool:
    """Whether ``envelope`` is one of its game's set-up events, ``first`` being the game's event 1.

    The set-up is the chain's first command, the server's: its id is random (``store.new_setup_id``; games
    before that used ``setup``) and its events have no seat, which a player's or a bot's always have.
    """
    return envelope.seat is None and envelope.command_id == first.command_id
