"""The fold worker: inbox partitions -> decide -> atomic append -> acknowledge.

Each round reads a batch from the partitions this worker holds, decides every command against the
cached state (folding its events in at once, so the next command of the same game sees them), sends all
appends in one pipeline, then acknowledges what was applied, rejected or already applied. An append
refused for a stale sequence or hash drops the cached state and is decided again on a fresh load.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Sequence
from typing import Any

import msgspec
import redis
import structlog

from domain.engine import RuleViolation, rng_for
from events import codec
from events.bus import CommandBus, InboxEntry
from events.envelope import CommandRecord, CommandStatus, Envelope, InboxMessage
from events.errors import PoisonMessage, UnknownGame
from events.keys import partition_for
from events.store import (
    AppendItem,
    AppendResult,
    EventStore,
    LoadedGame,
    envelopes_for,
    now_ms,
    parse_append_replies,
)
from workers.cache import StateCache
from workers.leases import PartitionLeases
from workers.metrics import WorkerMetrics

log = structlog.get_logger("fold")

AppliedHook = Callable[[str, LoadedGame], None]
"""Called after a command was applied: ``(game_id, the game as it is now)`` (bots, notifications)."""


class Decision(msgspec.Struct, kw_only=True):
    """What deciding one inbox entry produced, waiting for its append's reply."""

    entry: InboxEntry
    message: InboxMessage
    record: CommandRecord
    envelopes: list[Envelope]
    before: LoadedGame
    after: LoadedGame
    finished: bool


class FoldWorker:
    """Folds commands of the partitions it leases into their games' event streams."""

    def __init__(
        self,
        client: redis.Redis,
        store: EventStore,
        bus: CommandBus,
        *,
        worker_id: str | None = None,
        batch_size: int = 256,
        block_ms: int = 100,
        lease_ttl_ms: int = 3000,
        max_attempts: int = 5,
        cache_size: int = 10_000,
        on_applied: AppliedHook | None = None,
    ) -> None:
        self.redis = client
        self.store = store
        self.bus = bus
        self.worker_id = worker_id or f"fold-{uuid.uuid4().hex[:10]}"
        self.batch_size = batch_size
        self.block_ms = block_ms
        self.max_attempts = max_attempts
        self.cache = StateCache(cache_size)
        self.leases = PartitionLeases(client, self.worker_id, bus.partitions, lease_ttl_ms)
        self.metrics = WorkerMetrics(client)
        self.on_applied = on_applied
        self._stopping = False
        self._next_heartbeat = 0.0
        self._drain_pending: set[int] = set()

    # --- the loop ---------------------------------------------------------------------------------------

    @property
    def stopping(self) -> bool:
        return self._stopping

    def request_stop(self) -> None:
        """Warm stop: finish the batch in flight, release the leases, return from ``run``."""
        self._stopping = True

    def run(self, until_idle: bool = False) -> int:
        """Fold until stopped (or, with ``until_idle``, until nothing is left to read); returns the count."""
        self.bus.ensure_groups()
        processed = 0
        log.info("worker_started", worker=self.worker_id, partitions=self.bus.partitions)
        try:
            while not self._stopping:
                self._heartbeat()
                entries = self._next_entries()
                if entries:
                    processed += self.process(entries)
                elif until_idle and not self._drain_pending:
                    break
        finally:
            self.leases.release_all()
            log.info("worker_stopped", worker=self.worker_id, processed=processed)
        return processed

    def _heartbeat(self) -> None:
        now = time.monotonic()
        if now < self._next_heartbeat:
            return
        self._next_heartbeat = now + self.leases.ttl_ms / 3000
        gained, lost = self.leases.heartbeat()
        for partition in sorted(gained):
            claimed = self.bus.claim_pending(self.worker_id, partition)
            self._drain_pending.add(partition)
            log.info("partition_acquired", worker=self.worker_id, partition=partition, claimed=claimed)
        for partition in lost:
            self._drain_pending.discard(partition)
            log.warning("partition_lost", worker=self.worker_id, partition=partition)
        if gained or lost:
            self.cache.drop_where(
                lambda game_id: partition_for(game_id, self.bus.partitions) in gained | lost
            )

    def _next_entries(self) -> list[InboxEntry]:
        """Pending entries of newly acquired partitions first (in order), then new ones."""
        draining = sorted(self._drain_pending & self.leases.owned)
        self._drain_pending &= self.leases.owned
        if draining:
            entries = self.bus.read(self.worker_id, draining, self.batch_size, None, pending=True)
            self._drain_pending -= {p for p in draining if not any(e.partition == p for e in entries)}
            if entries:
                return entries
        owned = sorted(self.leases.owned)
        if not owned:
            time.sleep(self.block_ms / 1000)
            return []
        return self.bus.read(self.worker_id, owned, self.batch_size, self.block_ms)

    # --- one batch --------------------------------------------------------------------------------------

    def process(self, entries: Sequence[InboxEntry]) -> int:
        """Decide, append and acknowledge a batch; entries whose append conflicted are tried again."""
        todo = list(entries)
        for _ in range(self.max_attempts):
            if not todo:
                break
            todo = self._round(todo)
        for entry in todo:
            self._drain_pending.add(entry.partition)
            log.warning("append_conflict_persists", entry_id=entry.entry_id.decode())
        return len(entries) - len(todo)

    def _round(self, entries: Sequence[InboxEntry]) -> list[InboxEntry]:
        by_game: dict[str, list[Decision]] = {}
        poison: list[tuple[InboxEntry, str]] = []
        for entry in entries:
            try:
                decision = self._decide(entry)
            except PoisonMessage as exc:
                poison.append((entry, str(exc)))
                continue
            by_game.setdefault(decision.message.game_id, []).append(decision)
        pipe = self.redis.pipeline(transaction=False)
        for game_id, decisions in by_game.items():
            items = [
                AppendItem(
                    record=d.record,
                    envelopes=d.envelopes,
                    at_hash=d.before.hash,
                    meta_fields=self._meta_fields(d),
                )
                for d in decisions
            ]
            self.store.queue_append_batch(pipe, game_id, items)
        replies = pipe.execute(raise_on_error=False) if by_game else []
        outcomes: list[tuple[Decision, AppendResult | Exception]] = []
        for decisions, reply in zip(by_game.values(), replies, strict=True):
            results = (
                [reply] * len(decisions) if isinstance(reply, Exception) else parse_append_replies(reply)
            )
            outcomes.extend(zip(decisions, results, strict=True))
        return self._settle(outcomes, poison)

    def _settle(
        self, outcomes: list[tuple[Decision, AppendResult | Exception]], poison: list[tuple[InboxEntry, str]]
    ) -> list[InboxEntry]:
        retry: list[InboxEntry] = []
        after = self.redis.pipeline(transaction=False)
        applied: list[Decision] = []
        done: dict[int, list[bytes]] = {}
        for decision, result in outcomes:
            game_id = decision.message.game_id
            if isinstance(result, Exception):
                log.error("append_failed", game_id=game_id, error=str(result))
                self.cache.drop(game_id)
                retry.append(decision.entry)
            elif result.status == "ok":
                applied.append(decision)
                done.setdefault(decision.entry.partition, []).append(decision.entry.entry_id)
                self._maybe_snapshot(after, decision)
            elif result.status == "dup":
                self.cache.drop(game_id)
                done.setdefault(decision.entry.partition, []).append(decision.entry.entry_id)
            elif result.status in ("conflict", "skipped"):
                self.cache.drop(game_id)
                retry.append(decision.entry)
            else:
                self.cache.drop(game_id)
                poison.append((decision.entry, f"unknown game {game_id}"))
        for partition, entry_ids in done.items():
            self.bus.queue_ack(after, partition, entry_ids)
        for entry, reason in poison:
            log.warning("dead_lettered", entry_id=entry.entry_id.decode(), reason=reason)
            self.bus.queue_dead_letter(after, entry, reason)
        self.metrics.queue(
            after, applied=[(d.record, d.message.submitted_ms) for d in applied], dead=len(poison)
        )
        after.execute()
        for decision in applied:
            self._after_applied(decision)
        return retry

    def _after_applied(self, decision: Decision) -> None:
        game_id = decision.message.game_id
        log.debug(
            "command_folded",
            game_id=game_id,
            command_id=decision.record.command_id,
            status=decision.record.status,
            seq=decision.after.seq,
            latency_ms=now_ms() - decision.message.submitted_ms,
        )
        if decision.finished:
            self.store.mark_finished(game_id)
        if self.on_applied is not None and decision.record.status == "applied":
            self.on_applied(game_id, decision.after)

    def _meta_fields(self, decision: Decision) -> dict[str, bytes | str | int] | None:
        return {"status": "finished"} if decision.finished else None

    def _maybe_snapshot(self, pipe: Any, decision: Decision) -> None:
        every = self.store.snapshot_every
        before, after = decision.before.seq, decision.after.seq
        if after // every > before // every:
            self.store.save_snapshot(
                pipe, decision.message.game_id, after, decision.after.hash, decision.after.state
            )

    # --- deciding one command ---------------------------------------------------------------------------

    def _load(self, game_id: str) -> LoadedGame:
        loaded = self.cache.get(game_id)
        if loaded is None:
            try:
                loaded = self.store.load(game_id)
            except UnknownGame as exc:
                raise PoisonMessage(f"unknown game: {exc}") from exc
            self.cache.put(game_id, loaded)
        return loaded

    def _decide(self, entry: InboxEntry) -> Decision:
        try:
            message = codec.decode_inbox(entry.raw)
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            raise PoisonMessage(f"undecodable inbox message: {exc}") from exc
        before = self._load(message.game_id)
        try:
            events = self._rule_events(before, message)
        except RuleViolation as exc:
            return self._rejected(entry, message, before, exc.code, exc.message)
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
            now_ms(),
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
        record = _record(message, before, "applied", first_seq=before.seq + 1, last_seq=after.seq)
        return Decision(
            entry=entry, message=message, record=record, envelopes=envelopes, before=before, after=after,
            finished=finished,
        )  # fmt: skip

    def _rule_events(self, loaded: LoadedGame, message: InboxMessage) -> list[Any]:
        """The game's events for a command, or ``RuleViolation`` for anything the rules or format refuse."""
        game, seats = loaded.game, loaded.meta.header.seats
        if message.seat is None or not 0 <= message.seat < seats:
            raise RuleViolation("command.bad_seat", f"seat must be 0 to {seats - 1}, not {message.seat}")
        try:
            command = codec.decode_command(game, message.command)
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            raise RuleViolation("command.invalid", f"not a {game.key} command: {exc}") from exc
        try:
            return list(
                game.decide(loaded.state, message.seat, command, rng_for(loaded.meta.seed, loaded.seq + 1))
            )
        except RuleViolation:
            raise
        except Exception as exc:
            log.exception("decide_failed", game_id=message.game_id, command_id=message.command_id)
            raise PoisonMessage(f"decide failed: {type(exc).__name__}: {exc}") from exc

    def _rejected(
        self, entry: InboxEntry, message: InboxMessage, loaded: LoadedGame, code: str, text: str
    ) -> Decision:
        record = _record(message, loaded, "rejected", code=code, message=text)
        return Decision(
            entry=entry,
            message=message,
            record=record,
            envelopes=[],
            before=loaded,
            after=loaded,
            finished=False,
        )


def _record(
    inbox: InboxMessage, decided_on: LoadedGame, status: CommandStatus, **fields: Any
) -> CommandRecord:
    """The result record of a command decided on ``decided_on``'s state."""
    return CommandRecord(
        command_id=inbox.command_id,
        seat=inbox.seat,
        command=inbox.command,
        status=status,
        at_seq=decided_on.seq,
        ts_ms=now_ms(),
        submitted_ms=inbox.submitted_ms,
        **fields,
    )
