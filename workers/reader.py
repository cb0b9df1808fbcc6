"""The fold worker's reads of its inbox partitions, and the writes that ride along with them.

Acknowledgements, dead letters, snapshots, counters and trims are queued and go to Redis in the same round
trip as the next read. While the worker is busy, that read is sent *ahead*, on a connection of its own,
right after the appends of the batch in flight: Redis runs it between their scripts (it serves each client
a slice of its input at a time), so its reply is waiting by the time the worker has decided the next batch
and landed the one in flight, and the worker never stands idle for a read.
"""

from __future__ import annotations

import time
from typing import Any

import redis
import structlog

from events.bus import CommandBus, InboxEntry
from events.transport.pipelined import Pipelined
from workers.leases import PartitionLeases
from workers.metrics import WorkerMetrics

log = structlog.get_logger("fold")

HOUSEKEEPING_S = 0.2
"""How often a busy worker adds its counters to ``hm:metrics`` and trims the partitions it acknowledged."""
FIRST_COUNT = 1
"""Entries per partition a read takes after a read that left none behind (see ``InboxReader.count``)."""


class InboxReader:
    """Reads the entries of the partitions a worker leases, sending the queued writes with each read."""

    def __init__(
        self,
        client: redis.Redis,
        bus: CommandBus,
        consumer: str,
        leases: PartitionLeases,
        metrics: WorkerMetrics,
        batch_size: int,
        block_ms: int,
        read_ahead: bool = True,
    ) -> None:
        self.bus = bus
        self.consumer = consumer
        self.leases = leases
        self.metrics = metrics
        self.batch_size = batch_size
        """The most entries a read takes from one partition."""
        self.count = FIRST_COUNT
        """The entries per partition the next read takes: doubled after a read that filled a partition's
        count (more are waiting), up to ``batch_size``; back to ``FIRST_COUNT`` after one that filled none.
        Under a backlog it soon reads whole batches; a burst of moves (every game's next move, prompted by
        the same frames) is decided and appended a few first, then more, so that their events reach the
        gateway, and the players' next moves the worker, while the rest are decided: the stages of a move
        overlap instead of passing one clump from one to the next (50 games: ~15 % more moves/s)."""
        self.block_ms = block_ms
        self.writes: Any = bus.pipeline()
        """Acknowledgements, dead letters, snapshots and counters, sent with the next read."""
        self.drain_pending: set[int] = set()
        """Partitions whose pending entries (delivered to this consumer, never acknowledged) are read first."""
        self.untrimmed: set[int] = set()
        """Partitions acknowledged since their last trim."""
        # On a Redis Cluster the read goes per node (``events/cluster_reads.py``): none is sent ahead (nor with
        # the plain transport).
        self._link = Pipelined(client) if read_ahead and not bus.on_cluster else None
        self._ahead = 0
        """Replies outstanding on the link for the read sent ahead (0: none sent)."""
        self._next_housekeeping = 0.0
        self._ran_dry = True
        """The last read waited (the worker had nothing in flight) and found nothing: the worker is idle, so
        housekeeping need not wait for its beat."""

    @property
    def ahead(self) -> bool:
        """A read was sent ahead and its entries not taken yet."""
        return self._ahead > 0

    def next_entries(self, busy: bool) -> list[InboxEntry]:
        """The entries read ahead, if a read was sent; else pending entries of newly acquired partitions
        first (in order), then new ones, waiting up to ``block_ms`` for them unless ``busy``."""
        if self._ahead:
            return self._receive_ahead()
        owned = self.leases.owned
        draining = sorted(self.drain_pending & owned)
        self.drain_pending &= owned
        if draining:
            entries = self.bus.read(
                self.consumer, draining, self.batch_size, None, pending=True, writes=self.writes
            )
            self.drain_pending -= {p for p in draining if not any(e.partition == p for e in entries)}
            if entries:
                self._ran_dry = False
                return entries
        if not owned:
            self.flush()
            time.sleep(self.block_ms / 1000)
            return []
        # Run dry (a read waited and found nothing): the worker is idle, so counters and trims go out now,
        # with the read that waits. Only then: under a steady trickle the worker lands each batch before the
        # next arrives and waits for it, and housekeeping with each such read (a trim per partition, the
        # counters) cost Redis and the worker more than the commands themselves (5,000 commands/s: Redis
        # 86 us and the worker 112 us a command, against 37 and 31 at 20,000/s).
        self._queue_housekeeping(force=not busy and self._ran_dry)
        block = None if busy else self.block_ms
        entries = self.bus.read(self.consumer, sorted(owned), self.count, block, writes=self.writes)
        self._ran_dry = block is not None and not entries
        return self._counted(entries)

    def read_ahead(self) -> None:
        """Send the next read now, with the queued writes, without waiting for its reply (taken by the
        next ``next_entries``). Not while pending entries are to be read first: they come in order."""
        owned = self.leases.owned
        if self._link is None or self._ahead or not owned or self.drain_pending & owned:
            return
        self._queue_housekeeping()
        calls = [args for args, _options in self.writes.command_stack]
        self.writes.reset()
        calls.append(self.bus.read_call(self.consumer, sorted(owned), self.count))
        self._link.send(calls)
        self._ahead = len(calls)

    def _receive_ahead(self) -> list[InboxEntry]:
        assert self._link is not None  # only a read sent ahead is received here
        *written, read = self._link.receive(self._ahead)
        self._ahead = 0
        for reply in written:
            if isinstance(reply, redis.exceptions.NoScriptError):
                self.bus.reload_scripts()  # a trim lost; the partition is trimmed with its next one
            elif isinstance(reply, Exception):
                log.error("write_failed", worker=self.consumer, error=str(reply))
        if isinstance(read, Exception):
            raise read
        self._ran_dry = False  # sent ahead while a batch was in flight: the worker was busy
        return self._counted(self.bus.entries_of(read))

    def _counted(self, entries: list[InboxEntry]) -> list[InboxEntry]:
        """``entries``, the count of the next read set from them (``count``)."""
        taken: dict[int, int] = {}
        for entry in entries:
            taken[entry.partition] = taken.get(entry.partition, 0) + 1
        full = any(n >= self.count for n in taken.values())
        self.count = min(self.batch_size, self.count * 2) if full else FIRST_COUNT
        return entries

    def flush(self) -> None:
        """Send the queued writes now, with the counters and trims (they otherwise wait for a read)."""
        self._queue_housekeeping(force=True)
        if len(self.writes):
            self.bus.send_writes(self.writes)

    def close(self) -> None:
        """Drop the connection of the reads sent ahead (their entries stay pending for this consumer)."""
        if self._link is not None:
            self._link.close()
        self._ahead = 0

    def _queue_housekeeping(self, force: bool = False) -> None:
        """Queue the counters and the trims of the partitions acknowledged since the last time, at most
        every ``HOUSEKEEPING_S`` under load (per batch, they cost Redis more than the batch's own reads)."""
        now = time.monotonic()
        if not force and now < self._next_housekeeping:
            return
        self._next_housekeeping = now + HOUSEKEEPING_S
        self.metrics.queue_flush(self.writes)
        for partition in sorted(self.untrimmed):
            self.bus.queue_trim(self.writes, partition)
        self.untrimmed.clear()
