"""The plain implementations of the transport's interfaces, on redis-py alone: what the fast ones must
match (``tests/integration/transport/``), and the code to read first or step through in a debugger.

A ``PlainLink`` sends each batch of calls as a redis-py pipeline (no transaction); a ``PlainAppender``
runs each batch when it is sent and keeps its replies until they are asked for, so the worker's
write-ahead order holds while nothing overlaps. Both take a standalone client or a Cluster client.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Sequence
from typing import Any

import redis

from events.replica_ack import ReplicaAck, confirmed
from events.transport.interface import AppendCall
from events.transport.multiplexed import Calls
from events.transport.resp import Call, script_call


class PlainLink(Calls):
    """``interface.Link`` on a redis-py asyncio client (``redis.asyncio.Redis`` or ``RedisCluster``)."""

    def __init__(self, client: Any) -> None:
        _raw_replies(client)
        self.client = client

    async def each(self, calls: Sequence[Call]) -> list[Any]:
        pipeline = self.client.pipeline(transaction=False)
        for call in calls:
            pipeline.execute_command(*call)
        replies: list[Any] = await pipeline.execute(raise_on_error=False)
        return replies

    async def close(self) -> None:
        await self.client.aclose()


def _raw_replies(client: Any) -> None:
    """Let the client hand back replies as Redis sent them, as the fast link does (not redis-py's parsed
    forms: ``True`` for ``OK``, dicts for ``XREAD``), except those a Cluster client parses for itself (its
    nodes share the dict)."""
    callbacks = client.response_callbacks
    for name in [n for n in callbacks if not str(n).upper().startswith(("CLUSTER", "COMMAND"))]:
        del callbacks[name]


class PlainAppender:
    """``interface.Appender`` on a redis-py client (``redis.Redis`` or ``redis.cluster.RedisCluster``)."""

    def __init__(self, client: Any, script: str, replica_ack: ReplicaAck | None = None) -> None:
        self.client = client
        self.script = script
        self.sha: str = client.script_load(script)
        self.outstanding = 0
        self._ack = replica_ack if replica_ack is not None and replica_ack.active else None
        self._replies: deque[list[Any]] = deque()

    def pack_appends(self, calls: Iterable[AppendCall]) -> list[AppendCall]:
        return list(calls)

    def send_packed(self, payload: list[AppendCall], count: int) -> None:
        if not count:
            return
        pipeline = self.client.pipeline(transaction=False)
        for keys, args in payload:
            pipeline.execute_command(*script_call(self.sha, keys, args))
        if self._ack is not None:
            pipeline.execute_command(*self._ack.command())
        replies: list[Any] = pipeline.execute(raise_on_error=False)
        self._replies.append(replies if self._ack is None else confirmed(replies, self._ack))
        self.outstanding += count

    def receive(self, count: int) -> list[Any]:
        replies = self._replies.popleft()
        if len(replies) != count:
            raise RuntimeError(f"asked for {count} replies of a batch of {len(replies)}")
        self.outstanding -= count
        if any(isinstance(r, redis.exceptions.NoScriptError) for r in replies):
            self.sha = self.client.script_load(self.script)
        return replies

    def close(self) -> None:
        self._replies.clear()
        self.outstanding = 0
