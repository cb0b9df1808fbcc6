"""A multiplexed Redis connection of the gateway's own, for its hot paths (submitting commands, reading feeds).

redis-py's asyncio client takes a pooled connection per call, packs arguments in Python and reads each
reply through several layers; under thousands of moves a second that was most of the gateway's CPU. A
``Wire`` is one connection that many tasks share: each call's bytes (packed by hiredis in C) are queued
and written together once per turn of the event loop, and one reader task hands the replies back in the
order the calls were sent, which is the order Redis answers them. A blocking call (``XREAD BLOCK``) would
hold up every call behind it, so the feeds' reader has a wire of its own.

After a lost connection every waiting call fails with ``ConnectionError`` and the next call reconnects.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

import hiredis
import redis.asyncio as aioredis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError

READ_SIZE = 65536
_pack: Callable[[Any], bytes] = hiredis.pack_command

Call = tuple[Any, ...]
"""One Redis command with its arguments (``bytes``, ``str`` or ``int``)."""


class Wire:
    """One connection shared by many tasks; replies come back in the order the calls were sent."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.client_id = 0
        """Redis's id of the current connection (for ``CLIENT UNBLOCK``)."""
        self._writer: asyncio.StreamWriter | None = None
        self._connection: Any = None
        self._reader_task: asyncio.Task[None] | None = None
        self._waiting: deque[asyncio.Future[Any]] = deque()
        self._outgoing: list[bytes] = []
        self._flush_due = False
        self._connecting = asyncio.Lock()

    async def call(self, *args: Any) -> Any:
        """One command's reply; an error reply raises ``ResponseError``."""
        return (await self.calls([args]))[0]

    async def calls(self, calls: Sequence[Call]) -> list[Any]:
        """The replies of several commands sent back to back (no transaction)."""
        replies = await self.raw_calls(calls)
        for reply in replies:
            if isinstance(reply, hiredis.ReplyError):
                raise ResponseError(str(reply))
        return replies

    async def raw_calls(self, calls: Sequence[Call]) -> list[Any]:
        """Like ``calls``, but an error reply stays in its place as ``hiredis.ReplyError`` (on a Cluster a
        ``MOVED`` for one call must not hide the replies of the others)."""
        writer = self._writer or await self._connect()
        loop = asyncio.get_running_loop()
        futures = [loop.create_future() for _ in calls]
        self._waiting.extend(futures)
        self._outgoing.append(b"".join([_pack(call) for call in calls]))
        if not self._flush_due:
            self._flush_due = True
            loop.call_soon(self._flush, writer)
        try:
            replies = [await future for future in futures]
        except BaseException:
            for future in futures:  # the rest failed alike: mark their errors as seen
                if future.done() and not future.cancelled():
                    future.exception()
            raise
        return replies

    async def close(self) -> None:
        self._drop(RedisConnectionError("the wire was closed"))
        if self._reader_task is not None:
            self._reader_task.cancel()

    def _flush(self, writer: asyncio.StreamWriter) -> None:
        self._flush_due = False
        if writer is self._writer and self._outgoing:
            writer.write(b"".join(self._outgoing))
        self._outgoing.clear()

    async def _connect(self) -> asyncio.StreamWriter:
        async with self._connecting:
            if self._writer is not None:
                return self._writer
            # redis-py opens the connection and does the handshake (AUTH, SELECT) its URL asks for.
            pool: Any = aioredis.Redis.from_url(self.url).connection_pool
            connection = pool.make_connection()
            await connection.connect()
            await connection.send_command("CLIENT", "ID")
            self.client_id = int(await connection.read_response())
            self._connection = connection
            self._writer = connection._writer
            self._reader_task = asyncio.create_task(self._read(connection._reader), name="wire-reader")
            assert self._writer is not None
            return self._writer

    async def _read(self, stream: asyncio.StreamReader) -> None:
        parser = hiredis.Reader()
        try:
            while True:
                data = await stream.read(READ_SIZE)
                if not data:
                    raise RedisConnectionError("Redis closed the connection")
                parser.feed(data)
                reply = parser.gets()
                while reply is not False:
                    future = self._waiting.popleft()
                    if not future.done():
                        future.set_result(reply)
                    reply = parser.gets()
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            self._drop(exc if isinstance(exc, RedisConnectionError) else RedisConnectionError(str(exc)))

    def _drop(self, error: Exception) -> None:
        """Forget the connection; every call still waiting fails (its command may or may not have run)."""
        if self._writer is not None:
            self._writer.close()
        self._writer = None
        self._outgoing.clear()
        waiting, self._waiting = self._waiting, deque()
        for future in waiting:
            if not future.done():
                future.set_exception(error)
