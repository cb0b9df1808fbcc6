"""A finished game trimmed from Redis after its archive verified, and read back from that archive.

The archive file (``<game id>.jsonl.gz``, the lines of ``harbormaster export``) holds every event and every
command's result, so once it is written and verified Redis need not: ``trim`` deletes the game's event
stream, command log, snapshot and results, and keeps only its meta hash (header, seed, seat kinds, status,
now with ``archive``: the file) and its position (last seq and hash), a few hundred bytes. Reading such a
game (``EventStore.load``, ``harbormaster export``) goes to the file: ``fold_archive`` folds its events,
and refuses a file that does not end at the position Redis kept.
"""

from __future__ import annotations

import base64
import gzip
import json
from collections.abc import Iterator
from typing import Any

from events import codec, keys
from events.chain import genesis
from events.envelope import Envelope, GameHeader

ARCHIVE_FIELD = "archive"
"""The meta hash field naming the archive file of a trimmed game."""


def trim(client: Any, game_id: str, archive_file: str) -> None:
    """Delete the game's events, command log, snapshot and results, keeping its meta and position, in one
    transaction. Only for a finished game whose archive at ``archive_file`` was verified."""
    position = client.hget(keys.results(game_id), keys.POSITION_FIELD)
    pipe = client.pipeline(transaction=True)
    queue_trim(pipe, game_id, archive_file, position)
    pipe.execute()


def queue_trim(pipe: Any, game_id: str, archive_file: str, position: bytes | None) -> None:
    """``trim``'s writes on a transaction (one game's, or a batch's on a standalone Redis), with the
    position read before it (a finished game's does not move)."""
    pipe.hset(keys.meta(game_id), ARCHIVE_FIELD, archive_file)
    pipe.delete(keys.events(game_id), keys.commands(game_id), keys.snapshot(game_id), keys.results(game_id))
    if position is not None:
        pipe.hset(keys.results(game_id), keys.POSITION_FIELD, position)


def archive_lines(path: str) -> Iterator[bytes]:
    """The archive's lines (the export's), without their newlines."""
    with gzip.open(path, "rb") as lines:
        for line in lines:
            if line.strip():
                yield line.rstrip(b"\n")


def archived_envelopes(header: GameHeader, path: str) -> Iterator[Envelope]:
    """The envelopes in a game's archive, in order."""
    for raw in archive_lines(path):
        line = json.loads(raw)
        if line.get("kind") != "event":
            continue
        yield Envelope(
            game_id=header.game_id,
            seq=line["seq"],
            type=line["type"],
            version=line["version"],
            payload=base64.b64decode(line["payload"]),
            command_id=line["command_id"],
            seat=line["seat"],
            ts_ms=line["ts_ms"],
            prev_hash=line["prev_hash"],
            hash=line["hash"],
            seed=bytes.fromhex(line["seed"]) if line.get("seed") else None,
        )


def fold_archive(
    game: Any, header: GameHeader, path: str, last_seq: int, last_hash: str
) -> tuple[Any, int, str]:
    """``(state, seq, hash)`` of the game folded from its archive's events; raises ``ValueError`` when the
    file does not reach the position Redis kept (``last_seq``, ``last_hash``)."""
    state, seq, chain_hash = None, 0, genesis(header)
    for envelope in archived_envelopes(header, path):
        state = game.evolve(state, codec.decode_event(game, envelope))
        seq, chain_hash = envelope.seq, envelope.hash
    if (seq, chain_hash) != (last_seq, last_hash):
        raise ValueError(f"{header.game_id}: archive {path} ends at {seq}, Redis kept {last_seq}:{last_hash}")
    return state, seq, chain_hash
