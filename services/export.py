"""``harbormaster export GAME_ID``: the whole log of a game as JSON Lines.

Header (with the seed commitment), every event envelope with its hashes (the payload exactly as stored),
every command's recorded result in the order decided, the table chat for the record (outside the hash
chain: ``verify`` counts those lines, it cannot prove them), and an end line saying how far the export
reaches (the game's position, whether it is over, how many lines): ``verify`` tells a file cut short by it.

The export is of the game at one position, read first: events appended while it is written, and the
records of commands decided after that position, are left out, so no record points past the last event.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import msgspec

from events import codec, keys
from events.archived import archive_lines
from events.envelope import CommandRecord, Envelope
from events.store import EventStore
from services.audit.jsonl import ENCODER, ChatLine, CommandLine, EndLine, EventLine, HeaderLine
from services.players.chat import stored_message


def export_lines(store: EventStore, game_id: str) -> Iterator[bytes]:
    """Each line of the export, already encoded (no trailing newline)."""
    meta = store.meta(game_id)
    if meta.archive:  # trimmed from Redis after its archive verified: the archive is the export
        yield from archive_lines(meta.archive)
        return
    header = meta.header
    game = store.games.get(header.game)
    yield ENCODER.encode(
        HeaderLine(
            game_id=header.game_id,
            game=header.game,
            seats=header.seats,
            options=header.options,
            seed_commitment=header.seed_commitment,
            created_ms=header.created_ms,
        )
    )
    end = meta.last_seq
    events, finished = 0, False
    for entry_id, fields in store.redis.xrange(keys.events(game_id), max=f"{end}-0"):
        line = _event_line(game, entry_id, fields.get(b"e", b""))
        events, finished = events + 1, line.seed is not None
        yield ENCODER.encode(line)
    commands = 0
    for record in store.records(game_id):
        if _reach(record) <= end:
            commands += 1
            yield ENCODER.encode(_command_line(record))
    chat = 0
    for entry_id, fields in store.redis.xrange(keys.chat(game_id)):
        chat += 1
        yield ENCODER.encode(ChatLine(**stored_message(entry_id, fields)))
    yield ENCODER.encode(
        EndLine(
            last_seq=end,
            last_hash=meta.last_hash,
            finished=finished,
            events=events,
            commands=commands,
            chat=chat,
        )
    )


def _reach(record: CommandRecord) -> int:
    """The last seq a record needs: its last event if applied, the state it was decided on if not."""
    return record.last_seq if record.status == "applied" else record.at_seq


def _command_line(record: CommandRecord) -> CommandLine:
    return CommandLine(
        command_id=record.command_id,
        seat=record.seat,
        command=record.command.decode("utf-8", "replace"),
        status=record.status,
        at_seq=record.at_seq,
        first_seq=record.first_seq,
        last_seq=record.last_seq,
        code=record.code,
        message=record.message,
        ts_ms=record.ts_ms,
        origin=record.origin,
    )


def _event_line(game: Any, entry_id: bytes, raw: bytes) -> EventLine:
    seq = int(entry_id.split(b"-")[0])
    try:
        envelope = codec.decode_envelope(raw)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return EventLine(seq=seq, undecodable=raw)
    return EventLine(
        seq=envelope.seq,
        type=envelope.type,
        version=envelope.version,
        payload=envelope.payload,
        command_id=envelope.command_id,
        seat=envelope.seat,
        ts_ms=envelope.ts_ms,
        prev_hash=envelope.prev_hash,
        hash=envelope.hash,
        seed=envelope.seed.hex() if envelope.seed is not None else None,
        event=_readable(game, envelope),
    )


def _readable(game: Any, envelope: Envelope) -> Any:
    if game is None:
        return None
    try:
        return msgspec.to_builtins(codec.decode_event(game, envelope))
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
