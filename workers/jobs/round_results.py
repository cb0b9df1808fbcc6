"""A round's finished tables, read in batches: each game's outcome as the fold worker stored it when the
game ended, so that a round's close loads no game (issue 46, item 4: it loaded each finished game cold, one
after the other; 2,500 games for a 10,000-player round).

The fold worker's tournament hook has the game's final state in hand when it ends: it stores the outcome
with the position (``seq`` and chain hash) it was read from (``keep_outcome``). The close reads, in one
pipeline, each game's status and position and the round's stored outcomes (``round_results``); an outcome
stored at the game's current position is the outcome of that very state. A game without one (its hook lost
to a crash, a game ended before this was stored) or with one at another position is loaded cold, as before.
A clocked tournament also needs each game's events (who moved, who timed out): they are read in pipelines
of ``CLOCK_BATCH`` games, checked to end at the game's position.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from domain.engine import Outcome
from domain.tournament import State, TableFinished
from domain.tournament.results import table_finished
from events import codec, keys
from events.archived import archived_envelopes
from events.clocks import SeatClocks, seat_clocks
from events.envelope import Envelope
from events.errors import UnknownGame
from events.store import EventStore
from events.tournament_store import tournament_key
from workers.jobs.fan_out import each

CLOCK_BATCH = 64
"""Games whose whole event streams one pipeline reads (a Manila game's is ~130 events, ~40 KB)."""


class StoredOutcome(msgspec.Struct, frozen=True, kw_only=True):
    """A game's outcome as its last fold found it, and the position it was found at."""

    seq: int
    hash: str
    outcome: Outcome


_encoder = msgspec.msgpack.Encoder()
_decoder = msgspec.msgpack.Decoder(StoredOutcome)


def outcomes_key(tournament_id: str, number: int) -> str:
    """A hash: game id -> its ``StoredOutcome`` (msgpack), for round ``number``'s games that ended."""
    return tournament_key(tournament_id, f"outcomes:r{number}")


OUTCOMES_TTL_MS = 86_400_000
"""How long a round's stored outcomes outlive the last one stored: the close deletes them once it recorded
the round, but the hook runs again for a duplicate command, and one after the close would leave the hash
for ever. A round whose last game ended longer ago than this is closed with cold loads instead (correct,
slower)."""


def keep_outcome(pipe: Any, tournament_id: str, number: int, game_id: str, kept: StoredOutcome) -> None:
    """Queue the storing of an ended game's outcome (the fold worker's hook, in the pipeline it counts with)."""
    pipe.hset(outcomes_key(tournament_id, number), game_id, _encoder.encode(kept))
    pipe.pexpire(outcomes_key(tournament_id, number), OUTCOMES_TTL_MS)


def forget_outcomes(client: Any, tournament_id: str, numbers: Sequence[int]) -> None:
    """Drop the stored outcomes of rounds whose tables are recorded (nothing reads them again)."""
    if numbers:
        client.delete(*(outcomes_key(tournament_id, n) for n in sorted(set(numbers))))


class _Read(msgspec.Struct, kw_only=True):
    """What the close knows of one table's game after the batched read."""

    game_id: str
    position: bytes
    outcome: Outcome | None = None
    hash: str = ""


def round_results(
    store: EventStore, state: State, number: int, tables: Sequence[int]
) -> list[TableFinished] | None:
    """The results of ``tables`` of round ``number``, or ``None`` while any of their games goes on (or
    cannot be read whole now: a later pass decides)."""
    played = state.rounds[number - 1]
    games = [played.games[t] for t in tables]
    reads = _read_round(store, state.tournament_id, number, games)
    if reads is None:
        return None
    cold = [read for read in reads if read.outcome is None]
    if not all(each(lambda read: _load_cold(store, read), cold)):
        return None
    clocks: dict[str, SeatClocks] = {}
    if state.settings.clocked:  # from the game's own log: anyone can check it
        found = _read_clocks(store, reads)
        if found is None:
            return None
        clocks = found
    results = []
    for table, read in zip(tables, reads, strict=True):
        assert read.outcome is not None  # every cold one was loaded, or we returned
        seats = played.pairing.tables[table]
        forfeited: list[int] = []
        absent: list[int] = []
        if state.settings.clocked:
            seat_clock = clocks[read.game_id]
            forfeited = sorted(seat_clock.timeouts) if state.settings.on_timeout == "forfeit" else []
            absent = [seat for seat in range(len(seats)) if seat not in seat_clock.moved]
        results.append(table_finished(number, table, seats, read.outcome, read.hash, game=state.settings.game,
                                      forfeited_seats=forfeited, absent_seats=absent))  # fmt: skip
    return results


def _read_round(store: EventStore, tid: str, number: int, games: Sequence[str]) -> list[_Read] | None:
    """Each game's status, position and stored outcome, in one pipeline; ``None`` if one has not ended."""
    pipe = store.redis.pipeline(transaction=False)
    for game_id in games:
        pipe.hget(keys.meta(game_id), "status")
        pipe.hget(keys.results(game_id), keys.POSITION_FIELD)
    if games:
        pipe.hmget(outcomes_key(tid, number), list(games))
    replies = pipe.execute() if games else [[]]
    stored = replies[-1]
    reads = []
    for index, game_id in enumerate(games):
        status, position = replies[2 * index], replies[2 * index + 1]
        if status != b"finished" or not position:
            return None
        read = _Read(game_id=game_id, position=position)
        kept = _stored(stored[index])
        if (
            kept is not None and f"{kept.seq}:{kept.hash}".encode() == position
        ):  # the outcome of the state there
            read.outcome, read.hash = kept.outcome, kept.hash
        reads.append(read)
    return reads


def _stored(raw: bytes | None) -> StoredOutcome | None:
    """A stored outcome, or ``None`` for none or one that does not decode (the game is loaded instead: a
    bad value in the hash must not fail the tournament)."""
    if not raw:
        return None
    try:
        return _decoder.decode(raw)
    except msgspec.DecodeError:
        return None


def _load_cold(store: EventStore, read: _Read) -> bool:
    """The outcome of a game with none stored, from a cold load; whether it has one."""
    try:
        loaded = store.load(read.game_id)
    except UnknownGame:
        return False
    if loaded.state is None:  # no event read (a game trimmed under the reader): decided again later
        return False
    outcome = loaded.game.outcome(loaded.state)
    if outcome is None:
        return False
    read.outcome, read.hash = outcome, loaded.hash
    return True


def _read_clocks(store: EventStore, reads: Sequence[_Read]) -> dict[str, SeatClocks] | None:
    """Each game's seat clocks from its events, ``CLOCK_BATCH`` games a pipeline; ``None`` if a game's
    events do not end at the position its outcome was read at (trimmed or moved on under the reader)."""
    batches = [reads[i : i + CLOCK_BATCH] for i in range(0, len(reads), CLOCK_BATCH)]
    found: dict[str, SeatClocks] = {}
    for part in each(lambda batch: _clock_batch(store, batch), batches):
        if part is None:
            return None
        found.update(part)
    return found


def _clock_batch(store: EventStore, batch: Sequence[_Read]) -> dict[str, SeatClocks] | None:
    pipe = store.redis.pipeline(transaction=False)
    for read in batch:
        pipe.xrange(keys.events(read.game_id))
    found = {}
    for read, entries in zip(batch, pipe.execute(), strict=True):
        envelopes = [codec.decode_envelope(fields[b"e"]) for _, fields in entries] or _archived(store, read)
        if not envelopes or envelopes[-1].hash != read.hash:
            return None
        found[read.game_id] = seat_clocks(envelopes)
    return found


def _archived(store: EventStore, read: _Read) -> list[Envelope]:
    """The events of a game trimmed from Redis, from its archive (none if it was not trimmed)."""
    try:
        meta = store.meta(read.game_id)
    except UnknownGame:
        return []
    return list(archived_envelopes(meta.header, meta.archive)) if meta.archive else []
