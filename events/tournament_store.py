"""Tournaments in the event store: each tournament is an event stream like a game's, with the same
envelopes, the same hash chain (from a header of its own) and the same atomic append script.

Keys share the hash tag ``{t:<id>}`` (one tournament on one Cluster shard). A decision is appended at
the sequence number it was decided on, under a command id that names it (``table-r2-t5``), so two
workers that decide the same thing append it once: the second gets ``dup`` (already done) or
``conflict`` (decide again on the newer state).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import msgspec
import redis

from domain.engine import seed_commitment
from domain.tournament import State, TournamentCreated, TournamentEvent, fold
from events import codec, keys
from events.chain import envelopes_for, genesis
from events.envelope import CommandRecord, Envelope, GameHeader
from events.errors import EventsError
from events.store import (
    APPEND_LUA,
    AppendItem,
    AppendResult,
    append_args,
    now_ms,
    parse_append_reply,
)

INDEX = keys.TOURNAMENTS
FAILED_FIELD = "failed"
"""The meta hash's field with the reason a tournament was set aside (``TournamentStore.mark_failed``)."""
MAX_FAILURE = 500
MARK_FAILED_LUA = """
-- KEYS[1] = the tournament's meta hash; ARGV = the field, the reason. Sets a tournament aside only if it
-- exists: a reason written under an id nobody created would set aside the tournament created under it later.
if redis.call('HEXISTS', KEYS[1], 'header') == 0 then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1
"""
_decoder = msgspec.msgpack.Decoder(TournamentEvent)


class UnknownTournament(EventsError):
    """No tournament has this id."""


class TournamentExists(EventsError):
    """A tournament with this id exists already."""


def tournament_key(tournament_id: str, part: str) -> str:
    return keys.tournament_key(tournament_id, part)


def _keys(tournament_id: str) -> tuple[str, str, str, str]:
    events, results, commands, meta = (
        tournament_key(tournament_id, p) for p in ("events", "results", "commands", "meta")
    )
    return events, results, commands, meta


class LoadedTournament(msgspec.Struct, kw_only=True):
    """A tournament folded to ``seq``, with the chain hash there (what the next append is checked on)."""

    header: GameHeader
    state: State
    seq: int
    hash: str


class TournamentStore:
    """Create, append to and fold tournaments on the event store's Redis."""

    def __init__(self, client: redis.Redis) -> None:
        self.redis: Any = client
        self._append = client.register_script(APPEND_LUA)
        self._mark_failed = client.register_script(MARK_FAILED_LUA)

    def _run(self, tournament_id: str, item: AppendItem, create: bool) -> AppendResult:
        args = append_args([item], create)
        if not hasattr(self.redis, "connection_pool"):
            # A Cluster client (it has a pool per node): its pipeline refuses scripts; the call goes to the
            # node of the tournament's slot, as ``EventStore`` does it.
            return parse_append_reply(
                self._append(keys=_keys(tournament_id), args=args, client=self.redis)[0]
            )
        pipe = self.redis.pipeline(transaction=False)
        self._append(keys=_keys(tournament_id), args=args, client=pipe)
        return parse_append_reply(pipe.execute()[0][0])

    def create(self, created: TournamentCreated) -> GameHeader:
        """The tournament's header (its genesis) and its first event, atomically; refuses a taken id."""
        ts = now_ms()
        tid = created.tournament_id
        header = GameHeader(
            game_id=tid,
            game=f"tournament:{created.settings.game}",
            seats=len(created.entrants),
            options={},
            seed_commitment=seed_commitment(created.pairing_seed),
            created_ms=ts,
        )
        envelopes = envelopes_for(tid, [created], 0, genesis(header), "create", None, ts)
        record = _record("create", 0, envelopes, ts)
        meta: dict[str, bytes | str | int] = {"header": codec.encode_header(header), "status": "created"}
        item = AppendItem(record=record, envelopes=envelopes, at_hash="", meta_fields=meta)
        if self._run(tid, item, create=True).status == "exists":
            # The index is in another slot (a Cluster) and written after the script: a creator killed in
            # between left the tournament unlisted, and its retry lists it (at its own creation time).
            self.redis.zadd(INDEX, {tid: self.header(tid).created_ms}, nx=True)
            raise TournamentExists(tid)
        self.redis.zadd(INDEX, {tid: ts})
        return header

    def append(
        self,
        loaded: LoadedTournament,
        command_id: str,
        events: Sequence[TournamentEvent],
        after: State | None = None,
    ) -> AppendResult:
        """Append a decision made on ``loaded``: ``ok``, ``dup`` (done before) or ``conflict`` (stale).
        ``after``: the state the events lead to, when the caller has it (else they are folded here, for
        the status the meta hash shows)."""
        ts = now_ms()
        tid = loaded.header.game_id
        envelopes = envelopes_for(tid, events, loaded.seq, loaded.hash, command_id, None, ts)
        status = _status_after(loaded.state, events, after)
        item = AppendItem(
            record=_record(command_id, loaded.seq, envelopes, ts),
            envelopes=envelopes,
            at_hash=loaded.hash,
            meta_fields={"status": status} if status else None,
        )
        result = self._run(tid, item, create=False)
        if result.status == "missing":
            raise UnknownTournament(tid)
        return result

    def envelopes(self, tournament_id: str) -> list[Envelope]:
        entries = self.redis.xrange(_keys(tournament_id)[0])
        return [codec.decode_envelope(fields[b"e"]) for _, fields in entries]

    def header(self, tournament_id: str) -> GameHeader:
        raw = self.redis.hget(_keys(tournament_id)[3], "header")
        if not raw:
            raise UnknownTournament(tournament_id)
        return codec.decode_header(raw)

    def load(self, tournament_id: str) -> LoadedTournament:
        """The tournament folded to its last event: from this process's last fold of it when that is a
        prefix of the stream (``_FOLDS``), else from its first event (no snapshots: a few events a table)."""
        header = self.header(tournament_id)
        known = _FOLDS.get(tournament_id)
        if known is not None:
            envelopes = self._from(tournament_id, known.seq)
            # The same chain hash at the same seq is the same prefix of events (the chain covers each
            # event and the header), whichever Redis it came from: the fold goes on from there.
            if envelopes and envelopes[0].seq == known.seq and envelopes[0].hash == known.hash:
                if len(envelopes) == 1 and known.header == header:
                    return known
                state = fold([decode(e) for e in envelopes[1:]], known.state)
                return _remember(LoadedTournament(header=header, state=state, seq=envelopes[-1].seq,
                                                  hash=envelopes[-1].hash))  # fmt: skip
        envelopes = self.envelopes(tournament_id)
        state = fold([decode(e) for e in envelopes])
        return _remember(
            LoadedTournament(header=header, state=state, seq=envelopes[-1].seq, hash=envelopes[-1].hash)
        )

    def _from(self, tournament_id: str, seq: int) -> list[Envelope]:
        """The envelopes from ``seq`` on (stream entry ids are ``<seq>-0``: ``append.lua``)."""
        entries = self.redis.xrange(_keys(tournament_id)[0], min=f"{seq}-0", max="+")
        return [codec.decode_envelope(fields[b"e"]) for _, fields in entries]

    def list(self, offset: int = 0, limit: int = 50) -> list[str]:
        """Up to ``limit`` ids from the ``offset``-th newest on (a negative offset: from the newest)."""
        if limit <= 0:  # ZREVRANGE 0 -1 would be every tournament
            return []
        offset = max(0, offset)
        return [i.decode() for i in self.redis.zrevrange(INDEX, offset, offset + limit - 1)]

    def mark_failed(self, tournament_id: str, reason: str) -> None:
        """Set the tournament aside: something about it (a setting stored before settings were checked, a
        game that cannot be set up) fails every time it is acted on. The reason is kept beside its
        status, outside its event stream (a fact about this server, not a decision of the tournament);
        nothing acts on it again (``reconcile_running``, round jobs) until an operator clears the field.
        Raises ``UnknownTournament`` (and writes nothing) for an id nobody created."""
        meta = _keys(tournament_id)[3]
        if not self._mark_failed(keys=[meta], args=[FAILED_FIELD, reason[:MAX_FAILURE]], client=self.redis):
            raise UnknownTournament(tournament_id)

    def failure(self, tournament_id: str) -> str | None:
        """Why the tournament was set aside, or ``None``."""
        raw = self.redis.hget(_keys(tournament_id)[3], FAILED_FIELD)
        return raw.decode("utf-8", "replace") if raw else None


FOLDS_KEPT = 8
"""Tournaments whose last fold a process keeps (a 10,000-player one holds a few MB). Folding all of a
big tournament's events again costs about a second a round of 2,500 tables (each table's ratings);
a round job loads its tournament once (it loaded it three times: issue 46, item 4), the reconcile pass twice
and a watcher every second (issue 42)."""
_FOLDS: dict[str, LoadedTournament] = {}
_FOLDS_LOCK = threading.Lock()


def _remember(loaded: LoadedTournament) -> LoadedTournament:
    """Keep ``loaded`` as its tournament's last fold (the newest ``FOLDS_KEPT``; threads share it: the
    states are immutable)."""
    with _FOLDS_LOCK:
        _FOLDS.pop(loaded.header.game_id, None)
        _FOLDS[loaded.header.game_id] = loaded
        while len(_FOLDS) > FOLDS_KEPT:
            del _FOLDS[next(iter(_FOLDS))]
    return loaded


def decode(envelope: Envelope) -> TournamentEvent:
    event: TournamentEvent = _decoder.decode(envelope.payload)
    return event


def _record(command_id: str, at_seq: int, envelopes: Sequence[Envelope], ts: int) -> CommandRecord:
    return CommandRecord(
        command_id=command_id,
        seat=None,
        command=command_id.encode(),
        status="applied",
        at_seq=at_seq,
        first_seq=at_seq + 1,
        last_seq=at_seq + len(envelopes),
        ts_ms=ts,
    )


def _status_after(state: State, events: Sequence[TournamentEvent], after: State | None) -> str:
    """The status to write to the meta hash (a quick look-up for lists), or "" if unchanged."""
    after = after if after is not None else fold(events, state)
    return after.status if after.status != state.status else ""
