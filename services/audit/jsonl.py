"""The export file's line types (JSON Lines), shared by export and the offline verifier."""

from __future__ import annotations

from typing import Any, Literal

import msgspec


class HeaderLine(msgspec.Struct, kw_only=True, tag="header", tag_field="kind"):
    game_id: str
    game: str
    seats: int
    options: dict[str, Any]
    seed_commitment: str
    created_ms: int


class EventLine(msgspec.Struct, kw_only=True, tag="event", tag_field="kind"):
    seq: int
    type: str = ""
    version: int = 1
    payload: bytes = b""
    """The event's canonical msgpack (base64 in JSON): this, not ``event``, is what is hashed."""
    command_id: str = ""
    seat: int | None = None
    ts_ms: int = 0
    prev_hash: str = ""
    hash: str = ""
    seed: str | None = None
    """The revealed seed (hex), on the event that ended the game."""
    event: Any = None
    """The event decoded, for people reading the file; checked against ``payload`` by verify."""
    undecodable: bytes | None = None
    """The raw stored bytes when the stored entry could not be decoded at all."""


class CommandLine(msgspec.Struct, kw_only=True, tag="command", tag_field="kind"):
    command_id: str
    seat: int | None
    command: str
    status: Literal["applied", "rejected"]
    at_seq: int
    first_seq: int = 0
    last_seq: int = 0
    code: str = ""
    message: str = ""
    ts_ms: int = 0
    origin: str = "seat"
    """Who sent it: ``seat``, ``bot``, ``clock`` or ``server``; with the seat it scopes the command id."""


class EndLine(msgspec.Struct, kw_only=True, tag="end", tag_field="kind"):
    """The last line: how far the export reaches, so that a file cut short is told from a whole one."""

    last_seq: int
    last_hash: str
    """The game's position when it was exported: the last event's seq and chain hash."""
    finished: bool
    """Whether the game was over (its last event reveals the seed); a live game verifies up to ``last_seq``."""
    events: int
    commands: int
    """How many event and command lines come before this one."""
    chat: int = 0
    """How many chat lines (0 in exports made before chat was exported)."""


class ChatLine(msgspec.Struct, kw_only=True, tag="chat", tag_field="kind"):
    """A message of the table chat, for the record: kept with the game but outside its hash chain, so that
    verify can count these lines and not prove them."""

    id: str
    """The message's stream entry id (its time in ms, a counter)."""
    channel: str
    """``players`` or ``spectators``."""
    author: str
    seat: int | None = None
    text: str
    ts_ms: int = 0


Line = HeaderLine | EventLine | CommandLine | ChatLine | EndLine
LINE_DECODER = msgspec.json.Decoder(Line)
ENCODER = msgspec.json.Encoder()
