"""The codec: msgpack on the wire via msgspec, one canonical byte form for hashing.

Encoders and decoders are built once: msgspec's are fastest when reused. The canonical form uses
``order="deterministic"`` so that any dict inside an event encodes the same on every machine.
"""

from __future__ import annotations

import functools
import typing
from typing import Any

import msgspec

from domain.engine import Game
from events.envelope import CommandRecord, Envelope, GameHeader, InboxMessage
from events.upcast import upcast

_canonical = msgspec.msgpack.Encoder(order="deterministic")
_envelope_decoder = msgspec.msgpack.Decoder(Envelope)
_record_decoder = msgspec.msgpack.Decoder(CommandRecord)
_inbox_decoder = msgspec.msgpack.Decoder(InboxMessage)
_header_decoder = msgspec.msgpack.Decoder(GameHeader)


def canonical(value: Any) -> bytes:
    """Deterministic msgpack bytes of any msgspec-encodable value."""
    return _canonical.encode(value)


def canonical_envelope(envelope: Envelope) -> bytes:
    """The bytes that are hashed: every field but ``hash`` itself, in a fixed order."""
    return _canonical.encode(
        (
            envelope.game_id,
            envelope.seq,
            envelope.type,
            envelope.version,
            envelope.payload,
            envelope.command_id,
            envelope.seat,
            envelope.ts_ms,
            envelope.prev_hash,
            envelope.seed,
        )
    )


def canonical_header(header: GameHeader) -> bytes:
    """The header's bytes, hashed into the chain's genesis."""
    return _canonical.encode(header)


def encode_envelope(envelope: Envelope) -> bytes:
    return _canonical.encode(envelope)


def decode_envelope(data: bytes) -> Envelope:
    return _envelope_decoder.decode(data)


def encode_record(record: CommandRecord) -> bytes:
    return _canonical.encode(record)


def decode_record(data: bytes) -> CommandRecord:
    return _record_decoder.decode(data)


def encode_inbox(message: InboxMessage) -> bytes:
    return _canonical.encode(message)


def decode_inbox(data: bytes) -> InboxMessage:
    """Raises ``msgspec.DecodeError``/``ValidationError`` on anything that is not an inbox message."""
    return _inbox_decoder.decode(data)


def encode_header(header: GameHeader) -> bytes:
    return _canonical.encode(header)


def decode_header(data: bytes) -> GameHeader:
    return _header_decoder.decode(data)


# --- domain events and commands --------------------------------------------------------------------------


_types_and_versions: dict[type, tuple[str, int]] = {}


def event_type(event: Any) -> tuple[str, int]:
    """The event's type tag and schema version."""
    cls = type(event)
    known = _types_and_versions.get(cls)
    if known is None:
        known = _types_and_versions[cls] = (str(cls.__struct_config__.tag), int(getattr(cls, "version", 1)))
    return known


def encode_event(event: Any) -> bytes:
    """The event's payload bytes (canonical msgpack, including its ``type`` tag)."""
    return _canonical.encode(event)


@functools.cache
def _event_decoder(game: Game[Any, Any, Any, Any]) -> msgspec.msgpack.Decoder[Any]:
    return msgspec.msgpack.Decoder(game.Event)


@functools.cache
def current_versions(game: Game[Any, Any, Any, Any]) -> dict[str, int]:
    """Each event type's current schema version, by tag."""
    return {
        str(cls.__struct_config__.tag): int(getattr(cls, "version", 1)) for cls in typing.get_args(game.Event)
    }


def decode_event(game: Game[Any, Any, Any, Any], envelope: Envelope) -> Any:
    """The domain event inside an envelope, upcast first if it was written by an older version."""
    if current_versions(game).get(envelope.type, 1) == envelope.version:
        return _event_decoder(game).decode(envelope.payload)
    raw = msgspec.msgpack.decode(envelope.payload)
    raw = upcast(game.key, envelope.type, envelope.version, raw)
    return msgspec.convert(raw, type=game.Event)


@functools.cache
def _command_decoder(game: Game[Any, Any, Any, Any]) -> msgspec.json.Decoder[Any]:
    return msgspec.json.Decoder(game.Command)


def decode_command(game: Game[Any, Any, Any, Any], data: bytes) -> Any:
    """A command from its JSON; raises ``msgspec.ValidationError``/``DecodeError`` with a clear text."""
    return _command_decoder(game).decode(data)


def encode_command(command: Any) -> bytes:
    return msgspec.json.encode(command)
