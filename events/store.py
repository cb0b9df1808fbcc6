"""The event store on Redis Streams: one stream per game, one atomic Lua append per command.

Reads are plain ``XRANGE`` from any sequence number (entry id ``<seq>-0``). Snapshots every N events
make a cold load fast; the stream stays the source of truth.
"""

from __future__ import annotations

import functools
import secrets
import time
from collections.abc import Mapping, Sequence
from importlib import resources
from typing import Any

import msgspec
import redis

from domain.engine import Game
from events import codec, keys
from events.archived import fold_archive
from events.chain import genesis
from events.envelope import CommandRecord, Envelope, GameHeader
from events.errors import GameExists, SequenceConflict, UnknownGame
from events.game_setup import SetUp, set_up
from events.replica_ack import ReplicaAck, append_with_ack

LUA = resources.files("events") / "lua"
APPEND_LUA = (LUA / "append.lua").read_text()
ARCHIVE_GRACE_MS = 10_000
"""How long after its end a game is left to its archive hook before ``serve``'s pass enqueues its archive."""


def now_ms() -> int:
    return int(time.time() * 1000)


def new_setup_id() -> str:
    """A set-up's command id: the server's, random, so that nobody can guess or reuse it."""
    return f"setup-{secrets.token_hex(8)}"


class GameMeta(msgspec.Struct, frozen=True, kw_only=True):
    """What the store knows about a game apart from its events."""

    header: GameHeader
    seed: bytes
    last_seq: int
    last_hash: str
    status: str
    bots: dict[str, str]
    """Seats played by a bot on the server: seat (as text) -> bot name."""
    tournament: bool = False
    spectator_delay: int = 0
    archive: str = ""  # the file of a game trimmed from Redis after archiving (``events/archived.py``)


class Snapshot(msgspec.Struct, frozen=True, kw_only=True):
    seq: int
    hash: str
    state: bytes


class LoadedGame(msgspec.Struct, kw_only=True):
    """A game's state folded up to ``seq``, with what a worker needs to decide the next command."""

    game: Any
    meta: GameMeta
    state: Any
    seq: int
    hash: str


class AppendResult(msgspec.Struct, frozen=True, kw_only=True):
    status: str
    """``ok``, ``dup``, ``conflict``, ``missing`` or ``exists``."""
    first_seq: int = 0
    last_seq: int = 0
    current_seq: int = 0
    record: CommandRecord | None = None


class AppendItem(msgspec.Struct, frozen=True, kw_only=True):
    """One command's part of an append: its result record, its events, and the hash it was decided on."""

    record: CommandRecord
    envelopes: Sequence[Envelope]
    at_hash: str
    meta_fields: Mapping[str, bytes | str | int] | None = None
    encoded_record: bytes = b""
    """The record's msgpack, when the caller has it already (else it is encoded here)."""
    encoded_envelopes: Sequence[bytes] = ()


def parse_append_replies(replies: Sequence[Any]) -> list[AppendResult]:
    """The append script's replies, one ``AppendResult`` per command."""
    return [parse_append_reply(reply) for reply in replies]


def parse_append_reply(reply: Sequence[Any]) -> AppendResult:
    """Turn one command's reply from the Lua script into an ``AppendResult``."""
    if reply[0] == b"ok":
        return AppendResult(status="ok", first_seq=reply[1], last_seq=reply[2])
    status = reply[0].decode() if isinstance(reply[0], bytes) else str(reply[0])
    if status == "dup":
        return AppendResult(status="dup", record=codec.decode_record(reply[1]))
    if status == "conflict":
        return AppendResult(status="conflict", current_seq=int(reply[1]))
    return AppendResult(status=status)


@functools.lru_cache(maxsize=1 << 16)
def append_keys(game_id: str) -> tuple[str, str, str, str]:
    """The keys the append script touches, all in the game's hash slot (kept for the games in play: the
    worker asks for them with every command)."""
    return (keys.events(game_id), keys.results(game_id), keys.commands(game_id), keys.meta(game_id))


def append_args(items: Sequence[AppendItem], create: bool = False) -> list[bytes | str | int]:
    """The append script's arguments for ``items`` (the layout is described at the top of append.lua)."""
    args: list[bytes | str | int] = ["create" if create else "append"]
    for item in items:
        meta = item.meta_fields or {}
        args += (
            item.record.result_field,  # the idempotency key: the command id scoped to its sender
            item.record.at_seq,
            item.at_hash,
            item.encoded_record or codec.encode_record(item.record),
            item.envelopes[-1].hash if item.envelopes else keys.no_events_mark(item.record.status),
            len(meta),
            len(item.envelopes),
        )
        for field, value in meta.items():
            args += (field, value)
        args += item.encoded_envelopes or [codec.encode_envelope(e) for e in item.envelopes]
    return args


def setup_item(made: SetUp) -> AppendItem:
    """A creation as the append script's one command (run with ``create``)."""
    return AppendItem(record=made.record, envelopes=made.envelopes, at_hash="", meta_fields=made.meta_fields)


def created_meta(made: SetUp) -> GameMeta:
    """The meta of a game just created from ``made``."""
    return GameMeta(header=made.header, seed=made.seed, last_seq=len(made.envelopes),
                    last_hash=made.envelopes[-1].hash, status="live", bots=made.bots,
                    tournament=made.tournament, spectator_delay=made.spectator_delay)  # fmt: skip


class EventStore:
    """Appends, reads and snapshots of every game on one standalone Redis (a game's keys share a hash slot,
    ready for a Cluster: see deploy/CLUSTER.md)."""

    def __init__(
        self,
        client: redis.Redis,
        games: Mapping[str, Game[Any, Any, Any, Any]],
        snapshot_every: int = 200,
        replica_ack: ReplicaAck | None = None,
    ) -> None:
        self.redis: Any = client  # redis-py types replies loosely; ours are bytes (decode_responses off)
        self.games = games
        self.snapshot_every = snapshot_every
        self.replica_ack = replica_ack or ReplicaAck()
        self._append = client.register_script(APPEND_LUA)
        self.script_source = APPEND_LUA

    # --- writing ---------------------------------------------------------------------------------------

    def queue_append_batch(
        self, pipe: Any, game_id: str, items: Sequence[AppendItem], create: bool = False
    ) -> None:
        """Queue one script call that appends several commands of one game, each checked on its own.

        Its reply (one per item, in order) is read with ``parse_append_replies``.
        """
        self._append(keys=append_keys(game_id), args=append_args(items, create), client=pipe)

    def _append_now(self, game_id: str, items: Sequence[AppendItem], create: bool = False) -> Any:
        """The append script's reply, sent now. On a Redis Cluster the script is called on the client itself,
        which sends it to the node of the game's slot (and follows ``MOVED``/``ASK``): redis-py's cluster
        pipeline refuses scripts. With a replica acknowledgement (``events/replica_ack.py``) the reply comes
        only once the replicas confirmed the append."""
        ack = self.replica_ack
        if not hasattr(self.redis, "connection_pool"):
            if ack.active:
                queue = functools.partial(
                    self.queue_append_batch, game_id=game_id, items=items, create=create
                )
                return append_with_ack(self.redis, keys.events(game_id), queue, ack)
            return self._append(keys=append_keys(game_id), args=append_args(items, create), client=self.redis)
        pipe = self.redis.pipeline(transaction=False)
        self.queue_append_batch(pipe, game_id, items, create)
        if ack.active:
            pipe.execute_command(*ack.command())
            reply, confirmation = pipe.execute(raise_on_error=False)
            if isinstance(reply, BaseException):
                raise reply
            ack.check(confirmation)
            return reply
        return pipe.execute()[0]

    def append(self, game_id: str, item: AppendItem) -> AppendResult:
        """Append one command's events (or record its rejection), atomically."""
        result = parse_append_replies(self._append_now(game_id, [item]))[0]
        if result.status == "missing":
            raise UnknownGame(game_id)
        if result.status == "conflict":
            raise SequenceConflict(item.record.at_seq, result.current_seq)
        return result

    def create(
        self,
        game_key: str,
        game_id: str,
        seats: int,
        options: Mapping[str, Any],
        seed: bytes,
        bots: Mapping[int, str] | None = None,
        tournament: bool = False,
        spectator_delay: int = 0,
        setup_id: str | None = None,
        hold: str = "",
        created_ms: int | None = None,
    ) -> GameMeta:
        """Set a game up: its header, secret seed and opening events, in one atomic script.

        The set-up's command id is the server's, unguessable (``setup-`` and a random token, unless given).
        The game is in ``keys.CREATING`` from before its script until it is in the game lists, so a creator
        killed in between leaves it to ``serve``'s reconciler. ``hold``: the caller writes more beside the game
        (``services/game_creation.py``); the game keeps ``creating=<hold>`` in its meta, and is listed by
        ``list_created`` once that is written. ``created_ms``: the clock reading (now unless given).
        """
        made = set_up(self.games[game_key], game_key, game_id, seats, options, seed,
                      setup_id=setup_id or new_setup_id(), ts=now_ms() if created_ms is None else created_ms,
                      bots=bots, tournament=tournament, spectator_delay=spectator_delay, hold=hold)  # fmt: skip
        return self.create_set_up(made, listed=not hold)

    def create_set_up(self, made: SetUp, listed: bool = True) -> GameMeta:
        """``create``'s writing, of a creation computed before (``events/game_setup.py``); ``listed``: put
        it in the game lists too (not while held)."""
        game_id, ts = made.header.game_id, made.header.created_ms
        self.redis.zadd(keys.CREATING, {game_id: ts})
        result = parse_append_replies(self._append_now(game_id, [setup_item(made)], create=True))[0]
        if result.status == "exists":  # its entry is left: the reconciler lists the game if it never was
            raise GameExists(game_id)
        if listed:
            self.list_created(game_id, ts)
        return created_meta(made)

    def list_created(self, game_id: str, created_ms: int) -> None:
        """A new game in the game lists and out of ``keys.CREATING``: one round trip, the creation's last."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.zadd(keys.GAMES_INDEX, {game_id: created_ms})
        pipe.zadd(keys.LIVE_GAMES, {game_id: created_ms})
        pipe.zrem(keys.CREATING, game_id)
        pipe.execute()

    def mark_finished(self, game_id: str) -> None:
        """Move a game from the live index to the finished ones (the index is advisory), first adding it to
        the games whose archive is due (``keys.ARCHIVE_PENDING``, after a grace in which the archive hook
        normally wins). In that order and not in one pipeline: a crash between the two leaves the game in the
        live index, whose repair (``workers/jobs/schedule.reconcile``) calls this again, so an ended game is
        always in one of the two (a lost archive hook is recoverable from stored state: issue 42)."""
        self.redis.zadd(keys.ARCHIVE_PENDING, {game_id: now_ms() + ARCHIVE_GRACE_MS}, nx=True)
        self.redis.zrem(keys.LIVE_GAMES, game_id)

    # --- reading ---------------------------------------------------------------------------------------

    def meta(self, game_id: str) -> GameMeta:
        pipe = self.redis.pipeline(transaction=False)
        queue_meta_read(pipe, game_id)
        raw, position = pipe.execute()
        if not raw or b"header" not in raw:
            raise UnknownGame(game_id)
        return meta_from_hash(raw, position)

    def read(self, game_id: str, after_seq: int = 0, count: int | None = None) -> list[Envelope]:
        """Envelopes with ``seq > after_seq``, in order."""
        entries = self.redis.xrange(keys.events(game_id), min=f"({after_seq}-0", max="+", count=count)
        return [codec.decode_envelope(fields[b"e"]) for _, fields in entries]

    def records(self, game_id: str) -> list[CommandRecord]:
        """Every command's recorded result, in the order decided.

        A command that appended events has its record on its last event; one that appended none (a
        rejection) is in the command log. Every command without events decided on the state at seq ``s``
        came before the one that moved the game on from ``s``, so ``(at_seq, with events last, log order)``
        is the order they were decided in.
        """
        ordered: list[tuple[int, int, int, CommandRecord]] = []
        for n, (_, fields) in enumerate(self.redis.xrange(keys.commands(game_id))):
            record = codec.decode_record(fields[b"r"])
            ordered.append((record.at_seq, 0, n, record))
        for n, (_, fields) in enumerate(self.redis.xrange(keys.events(game_id))):
            if b"r" in fields:
                record = codec.decode_record(fields[b"r"])
                ordered.append((record.at_seq, 1, n, record))
        ordered.sort(key=lambda item: item[:3])
        return [record for *_, record in ordered]

    def result(
        self, game_id: str, command_id: str, seat: int | None, origin: str = "seat"
    ) -> CommandRecord | None:
        """The recorded result of the command ``command_id`` of that sender, if decided."""
        raw = self.redis.hget(keys.results(game_id), keys.result_field(origin, seat, command_id))
        return codec.decode_record(raw) if raw else None

    def count_games(self, live_only: bool = False) -> int:
        """How many games the index holds (or live ones)."""
        return int(self.redis.zcard(keys.LIVE_GAMES if live_only else keys.GAMES_INDEX))

    def list_games(self, live_only: bool = False, offset: int = 0, limit: int = 50) -> list[str]:
        index = keys.LIVE_GAMES if live_only else keys.GAMES_INDEX
        ids = self.redis.zrevrange(index, offset, offset + limit - 1)
        return [i.decode() for i in ids]

    # --- snapshots and cold load -------------------------------------------------------------------------

    def save_snapshot(self, pipe: Any, game_id: str, seq: int, chain_hash: str, state: Any) -> None:
        """Queue a snapshot of ``state`` at ``seq`` (the stream stays the source of truth)."""
        snap = Snapshot(seq=seq, hash=chain_hash, state=msgspec.msgpack.encode(state))
        pipe.set(keys.snapshot(game_id), msgspec.msgpack.encode(snap))

    def load(self, game_id: str) -> LoadedGame:
        """Cold load: the latest snapshot, then every later event folded in."""
        meta = self.meta(game_id)
        game = self.games.get(meta.header.game)
        if game is None:
            raise UnknownGame(f"{game_id} is a game of unknown type {meta.header.game!r}")
        if meta.archive:
            state, seq, chain_hash = fold_archive(
                game, meta.header, meta.archive, meta.last_seq, meta.last_hash
            )
            return LoadedGame(game=game, meta=meta, state=state, seq=seq, hash=chain_hash)
        state, seq, chain_hash = None, 0, genesis(meta.header)
        raw_snap = self.redis.get(keys.snapshot(game_id))
        if raw_snap:
            snap = msgspec.msgpack.decode(raw_snap, type=Snapshot)
            state = msgspec.msgpack.decode(snap.state, type=game.State)
            seq, chain_hash = snap.seq, snap.hash
        for envelope in self.read(game_id, after_seq=seq):
            state = game.evolve(state, codec.decode_event(game, envelope))
            seq, chain_hash = envelope.seq, envelope.hash
        return LoadedGame(game=game, meta=meta, state=state, seq=seq, hash=chain_hash)


def queue_meta_read(pipe: Any, game_id: str) -> None:
    """Queue the two reads ``meta_from_hash`` takes: the meta hash and the game's position."""
    pipe.hgetall(keys.meta(game_id))
    pipe.hget(keys.results(game_id), keys.POSITION_FIELD)


def meta_from_hash(raw: Mapping[bytes, bytes], position: bytes | None) -> GameMeta:
    """Decode the meta hash and the position (``b"<seq>:<hash>"`` in the results hash) as Redis returns them."""
    last_seq, _, last_hash = (position or b"0:").partition(b":")
    return GameMeta(
        header=codec.decode_header(raw[b"header"]),
        seed=raw[b"seed"],
        last_seq=int(last_seq),
        last_hash=last_hash.decode(),
        status=raw.get(b"status", b"live").decode(),
        bots=msgspec.json.decode(raw.get(b"bots", b"{}"), type=dict[str, str]),
        tournament=raw.get(b"tournament", b"0") == b"1",
        spectator_delay=int(raw.get(b"spectator_delay", b"0")),
        archive=raw.get(b"archive", b"").decode(),
    )
