"""The fold worker: inbox partitions -> referee -> atomic append -> acknowledge.

Each step rules on a batch read from the partitions this worker holds (while Redis still runs the appends
of the batch before); sends the next read (``workers/reader.py``, on a connection of its own, and first:
Redis would answer a read sent after the appends only once it had run most of them); sends the batch's
appends at once, behind the batch in flight, on another connection of their own (``events/transport/pipelined.py``), so
Redis goes from one batch to the next without waiting for the worker; then lands the batch before: reads
its replies, acknowledges, counts.

Ruling is optimistic: each command is ruled on (``workers/referee.py``) on the cached state with the
commands before it folded in, also those still in flight, and its append carries the sequence and chain
hash it was ruled on. An
append refused for a stale sequence or hash (another worker moved the game on) drops the cached state.
The batch sent behind it then comes back refused for that game too (the position it expects was never
reached); both batches are landed, and the refused commands ruled on again, in their order, on fresh loads,
before anything new is read.
"""

from __future__ import annotations

import gc
import logging
import time
import uuid
from collections.abc import Callable, Sequence
from typing import Any

import msgspec
import redis
import structlog
from mypy_extensions import mypyc_attr

from events.bus import CommandBus, InboxEntry
from events.errors import PoisonMessage, UnknownGame
from events.keys import partition_for
from events.store import (
    EventStore,
    LoadedGame,
    append_args,
    append_keys,
    now_ms,
    parse_append_reply,
)
from events.transport.pipelined_cluster import appender_for
from workers.cache import StateCache
from workers.leases import PartitionLeases
from workers.metrics import WorkerMetrics
from workers.outage import refuses_writes
from workers.reader import InboxReader
from workers.referee import Referee, Ruling
from workers.timeout_guard import TimeoutRefused

log = structlog.get_logger("fold")

GC_WHEN_IDLE_S = 60.0
GC_UNDER_LOAD_S = 600.0
MAX_ATTEMPTS = 5
"""How many times ``_retry`` rules on and sends a refused command before it is left pending."""

AppliedHook = Callable[[str, LoadedGame], None]
"""Called after a command was applied: ``(game_id, the game as it is now)`` (bots, notifications)."""


class Flight(msgspec.Struct, kw_only=True):
    """A batch ruled on: one append script call per game, sent or about to be."""

    entries: Sequence[InboxEntry]
    by_game: dict[str, list[Ruling]]
    poison: list[tuple[InboxEntry, str]]
    dropped: list[InboxEntry]
    """Clock timeouts the log does not justify (``workers/timeout_guard.py``): acknowledged, not recorded."""
    appends: Any = b""
    """The script calls, packed (``Appender.pack_appends``): one per game, in the order of ``by_game``."""

    @property
    def size(self) -> int:
        return len(self.entries)


@mypyc_attr(allow_interpreted_subclasses=True)  # subclassed by tests, and compiled
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
        on_applied: AppliedHook | None = None,
        plain_transport: bool = False,
    ) -> None:
        """``plain_transport``: append and read through redis-py alone (``events/transport/plain.py``), no
        read sent ahead (``HARBORMASTER_TRANSPORT=plain``)."""
        self.store = store
        self.bus = bus
        self.worker_id = worker_id or f"fold-{uuid.uuid4().hex[:10]}"
        self.cache = StateCache()
        self.referee = Referee(store, self.cache)
        self.leases = PartitionLeases(client, self.worker_id, bus.partitions)
        self.metrics = WorkerMetrics()
        self.reader = InboxReader(
            client, bus, self.worker_id, self.leases, self.metrics, batch_size, block_ms, not plain_transport
        )
        self.on_applied = on_applied
        self.appender = appender_for(client, store.script_source, store.replica_ack, plain_transport)
        self._in_flight: Flight | None = None
        """A batch sent, its replies not read yet: it is landed in the next step, after its successor is sent."""
        self._log_each = log.is_enabled_for(logging.DEBUG)
        self._collected_at = time.monotonic()
        self._stopping = False
        self._next_heartbeat = 0.0
        self._duplicates: set[str] = set()
        """Games with a duplicate command in the batch being landed."""

    # --- the loop ---------------------------------------------------------------------------------------

    def request_stop(self) -> None:
        """Warm stop: finish the batch in flight, release the leases, return from ``run``."""
        self._stopping = True

    def run(self, until_idle: bool = False) -> int:
        """Fold until stopped (or, with ``until_idle``, until nothing is left to read); returns the count."""
        self.bus.ensure_groups()
        processed = 0
        self._next_heartbeat = 0.0  # take leases at once, also when run again after a stop
        log.info("worker_started", worker=self.worker_id, partitions=self.bus.partitions)
        try:
            while not self._stopping:
                self._heartbeat()
                if self.reader.drain_pending & self.leases.owned:
                    processed += self._settle_in_hand()  # a pending read would return the entries in hand
                busy = self._in_flight is not None
                self._collect_cycles(idle=not busy and not self.reader.ahead)
                entries = self.reader.next_entries(busy)
                processed += self._step(entries)
                idle = not entries and self._in_flight is None and not self.reader.ahead
                if until_idle and idle and not self.reader.drain_pending:
                    break
        finally:
            try:
                processed += self._settle_in_hand()
                self.reader.flush()
            finally:
                self.reader.close()
                self.leases.release_all()
                log.info("worker_stopped", worker=self.worker_id, processed=processed)
        return processed

    def _step(self, entries: list[InboxEntry]) -> int:
        """Rule on ``entries`` and send their appends behind the batch in flight, send the next read, then
        land the batch in flight; the new batch is in flight for the next step. Returns how many commands
        were settled."""
        flight, self._in_flight = self._in_flight, None
        batch = self._rule_batch(entries) if entries else None
        if flight is not None or batch is not None:
            self.reader.read_ahead()  # before the appends: Redis would answer it only after most of them
        if batch is not None:
            self.appender.send_packed(batch.appends, len(batch.by_game))  # one script call per game
        # In flight before the landing below: a refusal raised there leaves it to be landed on the way out.
        self._in_flight = batch
        if flight is None:
            return 0
        retry = self._land(flight)
        if not retry:
            return flight.size
        # Refused appends: the batch behind them holds rulings made on top of them, which come back
        # refused too. Land it as well, then rule on every refused command again, in order.
        return flight.size - len(retry) + self._settle_in_flight(retry)

    def _heartbeat(self) -> None:
        now = time.monotonic()
        if now < self._next_heartbeat:
            return
        self._next_heartbeat = now + self.leases.ttl_ms / 3000
        gained, lost = self.leases.heartbeat()
        for partition in sorted(gained):
            claimed = self.bus.claim_pending(self.worker_id, partition)
            self.reader.drain_pending.add(partition)
            log.info("partition_acquired", worker=self.worker_id, partition=partition, claimed=claimed)
        for partition in lost:
            self.reader.drain_pending.discard(partition)
            log.warning("partition_lost", worker=self.worker_id, partition=partition)
        changed = gained | lost  # a lease taken back with nobody in between is in neither (its cache holds)
        if changed:
            self.cache.drop_where(lambda game_id: partition_for(game_id, self.bus.partitions) in changed)

    def _keep_leases(self) -> None:
        """Between the games of a step: renew the leases when their beat is due. A step of many cold loads
        (a round's 2,500 games opened at once: issue 42) outlasts the leases' time to live; renewed only
        between steps, they were lost, with the cache, and the next step was as slow."""
        if not self.leases.owned:  # nothing to keep (``process`` called alone): not counted as a live worker
            return
        now = time.monotonic()
        if now >= self._next_heartbeat:
            self._next_heartbeat = now + self.leases.ttl_ms / 3000
            self.leases.renew()

    # --- one batch --------------------------------------------------------------------------------------

    def process(self, entries: Sequence[InboxEntry]) -> int:
        """Rule on, append and acknowledge a batch, waiting for it; refused appends are tried again."""
        processed = self._settle_in_flight() + self._retry(list(entries))
        self.reader.flush()
        return processed

    def _settle_in_hand(self) -> int:
        """Settle the batch in flight, then the entries read ahead, so that nothing is in hand."""
        settled = self._settle_in_flight()
        if self.reader.ahead:
            settled += self._retry(self.reader.next_entries(busy=True))
        return settled

    def _settle_in_flight(self, refused: list[InboxEntry] | None = None) -> int:
        """Land the batch in flight, then rule again, in order, the entries ``refused`` before it (if any)
        and those it had refused, so that nothing is in flight. Returns how many commands were settled."""
        flight, self._in_flight = self._in_flight, None
        if flight is None:
            return self._retry(refused or [])
        again = self._land(flight)
        return flight.size - len(again) + self._retry((refused or []) + again)

    def _retry(self, entries: list[InboxEntry]) -> int:
        """Rule on, send and land ``entries`` until all are settled (or the attempts run out)."""
        todo = entries
        for _ in range(MAX_ATTEMPTS):
            if not todo:
                break
            flight = self._rule_batch(todo)
            self.appender.send_packed(flight.appends, len(flight.by_game))
            todo = self._land(flight)
            self.reader.flush()
        for entry in todo:
            self.reader.drain_pending.add(entry.partition)
            log.warning("append_conflict_persists", entry_id=entry.entry_id.decode())
        return len(entries) - len(todo)

    def _collect_cycles(self, idle: bool) -> None:
        """Where the process turned the cyclic collector off (``workers/runner.py``), collect by hand: when
        idle and a minute has passed, or every ten minutes under load."""
        if gc.isenabled():
            return
        since = time.monotonic() - self._collected_at
        if since >= GC_UNDER_LOAD_S or (idle and since >= GC_WHEN_IDLE_S):
            found = gc.collect()
            self._collected_at = time.monotonic()
            log.debug("cycles_collected", found=found)

    def _rule_batch(self, entries: Sequence[InboxEntry]) -> Flight:
        """Rule on every entry, each game's commands on top of the one before (optimistically)."""
        flight = Flight(entries=entries, by_game={}, poison=[], dropped=[])
        ts = now_ms()
        for entry in entries:
            self._keep_leases()
            try:
                ruling = self.referee.rule(entry, ts)
            except TimeoutRefused as exc:  # a claimer's race, routine: logged, never a dead letter
                log.info("timeout_dropped", entry_id=entry.entry_id.decode(), reason=str(exc))
                flight.dropped.append(entry)
                continue
            except PoisonMessage as exc:
                flight.poison.append((entry, str(exc)))
                continue
            flight.by_game.setdefault(ruling.message.game_id, []).append(ruling)
        # Packed now, while Redis is still busy with the batch before: sending it is then one write. The
        # calls are made here, a list, not a generator the appender would run: the link calls nothing above it.
        flight.appends = self.appender.pack_appends(
            [
                (append_keys(game_id), append_args([d.item for d in rulings]))
                for game_id, rulings in flight.by_game.items()
            ]
        )
        return flight

    def _land(self, flight: Flight) -> list[InboxEntry]:
        """Read a flight's replies and settle each command; returns the entries to rule on again."""
        replies = self.appender.receive(len(flight.by_game))
        retry: list[InboxEntry] = []
        applied: list[Ruling] = []
        done: dict[int, list[bytes]] = {}
        poison = flight.poison
        refusal: Exception | None = None
        for rulings, reply in zip(flight.by_game.values(), replies, strict=True):
            if isinstance(reply, Exception):
                self.cache.drop(rulings[0].message.game_id)
                retry += (d.entry for d in rulings)
                if refuses_writes(reply):  # every append would be refused: raised below, once landed
                    refusal = reply
                else:
                    log.error("append_failed", game_id=rulings[0].message.game_id, error=str(reply))
                continue
            for ruling, result in zip(rulings, reply, strict=True):
                if result[0] == b"ok":  # the common case, without building an AppendResult
                    applied.append(ruling)
                    done.setdefault(ruling.entry.partition, []).append(ruling.entry.entry_id)
                    self._maybe_snapshot(ruling)
                    continue
                # Refused: a duplicate is acknowledged, a stale ruling ruled on again, a lost game
                # dead-lettered; the cached state is dropped in every case.
                game_id = ruling.message.game_id
                self.cache.drop(game_id)
                status = parse_append_reply(result).status
                if status == "dup":
                    done.setdefault(ruling.entry.partition, []).append(ruling.entry.entry_id)
                    self._duplicates.add(game_id)
                elif status in ("conflict", "skipped"):
                    retry.append(ruling.entry)
                else:
                    poison.append((ruling.entry, f"unknown game {game_id}"))
        for entry in flight.dropped:
            done.setdefault(entry.partition, []).append(entry.entry_id)
        for partition, entry_ids in done.items():
            self.bus.queue_ack(self.reader.writes, partition, entry_ids)
        for entry, reason in poison:
            log.warning("dead_lettered", entry_id=entry.entry_id.decode(), reason=reason)
            self.bus.queue_dead_letter(self.reader.writes, entry, reason)
        self.metrics.count(applied=[(d.record, d.message.submitted_ms) for d in applied], dead=len(poison))
        self.reader.untrimmed.update(done)
        self.reader.untrimmed.update(entry.partition for entry, _ in poison)
        for ruling in applied:
            self._keep_leases()  # the hooks enqueue jobs, a round trip or more each
            self._after_applied(ruling)
        self._after_duplicates()
        if refusal is not None:
            # Redis takes no writes (out of memory, a failed save): ruling again at once would be refused
            # again. The worker stops; its runner waits and starts again (``workers/outage.py``), and the
            # commands still pending are claimed then.
            raise refusal
        return retry

    def _after_applied(self, ruling: Ruling) -> None:
        game_id = ruling.message.game_id
        if self._log_each:
            log.debug(
                "command_folded",
                game_id=game_id,
                command_id=ruling.record.command_id,
                status=ruling.record.status,
                seq=ruling.after.seq,
                latency_ms=now_ms() - ruling.message.submitted_ms,
            )
        if ruling.finished:
            self.store.mark_finished(game_id)
        if self.on_applied is not None and ruling.record.status == "applied":
            self.on_applied(game_id, ruling.after)

    def _after_duplicates(self) -> None:
        """A command sent twice may be the trace of a turn whose follow-up was lost (a bot job that sent
        its move and died before the move's own trigger ran): the hook sees the game as it is now."""
        duplicates, self._duplicates = self._duplicates, set()
        if self.on_applied is None:
            return
        for game_id in sorted(duplicates):
            try:
                self.on_applied(game_id, self.store.load(game_id))
            except UnknownGame:
                continue

    def _maybe_snapshot(self, ruling: Ruling) -> None:
        every = self.store.snapshot_every
        before, after = ruling.before.seq, ruling.after.seq
        if after // every > before // every:
            self.store.save_snapshot(
                self.reader.writes, ruling.message.game_id, after, ruling.after.hash, ruling.after.state
            )
