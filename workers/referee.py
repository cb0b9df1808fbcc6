"""The fold worker's referee: it rules on one inbox entry, asking the game's rules (``decide_at``, the engine's
one ``decide``) on the cached state, and seals the ruling into envelopes and a result record: applied, or
refused with the rules' reason.

Pure apart from the cache it reads and fills, and the log a clock's timeout is checked against
(``workers/timeout_guard.py``): the fold worker sends what comes out.
"""

from __future__ import annotations

import re
from typing import Any

import msgspec
import structlog

from domain.engine import RuleViolation, decide_at
from events import codec
from events.bus import InboxEntry
from events.chain import envelopes_for
from events.envelope import CommandRecord, CommandStatus, InboxMessage
from events.errors import PoisonMessage, UnknownGame
from events.store import AppendItem, EventStore, LoadedGame
from workers.cache import StateCache
from workers.timeout_guard import TimeoutGuard, TimeoutRefused

log = structlog.get_logger("fold")

_POSITIONED = re.compile(r"(?:bot|timeout)-([0-9]{1,18})-")
"""A bot's move and a clock's timeout carry in their ids the position they were made at
(``workers/jobs/bots.py``, ``workers/jobs/clock.py``)."""


def made_at(message: InboxMessage) -> int | None:
    """The sequence number a server-made command (a bot's move, a clock's timeout) was made at; ``None``
    for a player's, whose ids are their own."""
    if message.origin not in ("bot", "clock"):
        return None
    found = _POSITIONED.match(message.command_id)
    return int(found.group(1)) if found else None


class Ruling(msgspec.Struct, kw_only=True):
    """The referee's ruling on one inbox entry, waiting for its append's reply."""

    entry: InboxEntry
    message: InboxMessage
    record: CommandRecord
    item: AppendItem
    before: LoadedGame
    after: LoadedGame
    finished: bool


class Referee:
    """Rules on inbox entries on the cached states of their games (loading a game the cache lacks)."""

    def __init__(self, store: EventStore, cache: StateCache) -> None:
        self.store = store
        self.cache = cache
        self.guard = TimeoutGuard(store)
        """Whether the log justifies a clock's timeout at the position it is ruled on at (issue 42)."""

    def _load(self, game_id: str) -> LoadedGame:
        loaded = self.cache.get(game_id)
        if loaded is None:
            try:
                loaded = self.store.load(game_id)
            except UnknownGame as exc:
                raise PoisonMessage(f"unknown game: {exc}") from exc
            self.cache.put(game_id, loaded)
        return loaded

    def rule(self, entry: InboxEntry, ts: int) -> Ruling:
        """Rule on one entry at time ``ts``; the cache then holds the game as it will be once appended.

        Raises ``PoisonMessage`` for what no rule can judge (undecodable, unknown game, a crashing rule).
        """
        try:
            message = codec.decode_inbox(entry.raw)
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            raise PoisonMessage(f"undecodable inbox message: {exc}") from exc
        before = self._load(message.game_id)
        at = made_at(message)
        if at is not None and at > before.seq:
            self.cache.drop(message.game_id)  # the store's own position, in case the cache was behind it
            before = self._load(message.game_id)
            if at > before.seq:
                # Made on events the store no longer has (Redis lost its last seconds after the bot read
                # them): recorded, its id would be taken when the game reaches that position again.
                raise PoisonMessage(f"{message.origin} move made at seq {at}; the game is at {before.seq}")
        refused = self.guard.refusal(message, before, ts) if message.origin == "clock" else None
        if refused is not None:  # a claimer's race: dropped, never recorded (the same timeout may come due)
            raise TimeoutRefused(refused)
        try:
            events = self._rule_events(before, message)
        except RuleViolation as exc:
            return self._rejected(entry, message, before, ts, exc.code, exc.message)
        try:
            state = before.game.fold(events, before.state) if events else before.state
        except Exception as exc:
            log.exception("evolve_failed", game_id=message.game_id, command_id=message.command_id)
            raise PoisonMessage(f"evolve failed: {type(exc).__name__}: {exc}") from exc
        finished = before.game.outcome(state) is not None
        envelopes = envelopes_for(
            message.game_id,
            events,
            before.seq,
            before.hash,
            message.command_id,
            message.seat,
            ts,
            reveal_seed=before.meta.seed if finished else None,
        )
        after = LoadedGame(
            game=before.game,
            meta=before.meta,
            state=state,
            seq=before.seq + len(envelopes),
            hash=envelopes[-1].hash if envelopes else before.hash,
        )
        self.cache.put(message.game_id, after)
        record = _record(message, before, "applied", ts, first_seq=before.seq + 1, last_seq=after.seq)
        item = AppendItem(
            record=record,
            envelopes=envelopes,
            at_hash=before.hash,
            meta_fields=_FINISHED if finished else None,
            encoded_record=codec.encode_record(record),
            encoded_envelopes=[codec.encode_envelope(e) for e in envelopes],
        )
        return Ruling(
            entry=entry, message=message, record=record, item=item, before=before, after=after,
            finished=finished,
        )  # fmt: skip

    def _rule_events(self, loaded: LoadedGame, message: InboxMessage) -> list[Any]:
        """The game's events for a command, or ``RuleViolation`` for anything the rules or format refuse."""
        game, seats = loaded.game, loaded.meta.header.seats
        if message.seat is None or not 0 <= message.seat < seats:
            raise RuleViolation("command.bad_seat", f"seat must be 0 to {seats - 1}, not {message.seat}")
        if len(message.command) > MAX_COMMAND_BYTES:  # refused before the rules, as verify knows
            raise RuleViolation(
                "command.invalid",
                f"a command is at most {MAX_COMMAND_BYTES} bytes, not {len(message.command)}",
            )
        try:
            command = codec.decode_command(game, message.command)
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            raise RuleViolation("command.invalid", f"not a {game.key} command: {exc}") from exc
        try:
            return list(decide_at(game, loaded.state, message.seat, command, loaded.meta.seed, loaded.seq))
        except RuleViolation:
            raise
        except Exception as exc:
            log.exception("decide_failed", game_id=message.game_id, command_id=message.command_id)
            raise PoisonMessage(f"decide failed: {type(exc).__name__}: {exc}") from exc

    def _rejected(
        self, entry: InboxEntry, message: InboxMessage, loaded: LoadedGame, ts: int, code: str, text: str
    ) -> Ruling:
        record = _record(message, loaded, "rejected", ts, code=code, message=text[:MAX_REFUSAL_TEXT])
        if len(record.command) > MAX_COMMAND_BYTES:  # only a command.invalid one: verify decides it not again
            record = msgspec.structs.replace(record, command=record.command[:MAX_COMMAND_BYTES])
        item = AppendItem(record=record, envelopes=(), at_hash=loaded.hash)
        return Ruling(
            entry=entry, message=message, record=record, item=item, before=loaded, after=loaded,
            finished=False,
        )  # fmt: skip


MAX_COMMAND_BYTES = 1024
"""The longest command ruled on: the longest legal one of any game is 124 bytes (El Capitán). A longer one
is refused unread, and a refusal keeps at most this much of it, so refused commands cannot fill Redis (their
records also expire: ``events/lua/append.lua``)."""
MAX_REFUSAL_TEXT = 500
"""A refusal's stored message, in characters (it may quote the command)."""

_FINISHED = {"status": "finished"}
"""The meta field set with the event that ends a game."""


def _record(
    inbox: InboxMessage, ruled_on: LoadedGame, status: CommandStatus, ts: int, **fields: Any
) -> CommandRecord:
    """The result record of a command ruled on at ``ruled_on``'s state, at time ``ts``."""
    return CommandRecord(
        command_id=inbox.command_id,
        seat=inbox.seat,
        command=inbox.command,
        status=status,
        at_seq=ruled_on.seq,
        ts_ms=ts,
        submitted_ms=inbox.submitted_ms,
        origin=inbox.origin,
        **fields,
    )
