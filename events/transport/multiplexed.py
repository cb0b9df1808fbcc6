"""The gateway's fast link to Redis: one multiplexed connection, for its hot paths (submitting commands,
reading feeds). ``plain.PlainLink`` does the same on redis-py, and is the reference it is tested against.

redis-py's asyncio client takes a pooled connection per call, packs arguments in Python and reads each
reply through several layers; under thousands of moves a second that was most of the gateway's CPU. A
``Multiplexed`` is one connection that many tasks share: each call's bytes (packed by hiredis in C) are queued
and written together once per turn of the event loop, and the replies are handed back, in the order the
calls were sent (the order Redis answers them), as they arrive: the connection's protocol parses them in
its ``data_received``, not a reader task woken a turn later (each turn a move waits for was a fraction of
a millisecond under load). A blocking call (``XREAD BLOCK``) would hold up every call behind it, so the
feeds' reader has a ``Multiplexed`` of its own.

A submit (a socket's move) is one future for its two replies (``Gathered``), not one a reply: the link
calls nothing of its caller, which awaits the future or is called back by the event loop.

After a lost connection every waiting call fails with ``ConnectionError`` and the next call reconnects.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Sequence
from typing import Any

import hiredis
from mypy_extensions import mypyc_attr
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError

from events.connection import async_client
from events.transport.resp import Call, pack_calls, packed_submit, submit_calls


class Gathered:
    """Several replies of one ``send_gathered``, collected as they are parsed into one future's list."""

    __slots__ = ("future", "left", "replies")

    def __init__(self, future: asyncio.Future[list[Any]], count: int) -> None:
        self.future = future
        self.left = count
        self.replies: list[Any] = []

    def take(self, reply: Any) -> None:
        self.replies.append(reply)
        self.left -= 1
        if self.left == 0 and not self.future.done():
            self.future.set_result(self.replies)

    def fail(self, error: Exception) -> None:
        if not self.future.done():
            self.future.set_exception(error)


@mypyc_attr(allow_interpreted_subclasses=True)  # subclassed by the other links
class Calls:
    """``call``, ``calls`` and ``submit`` on top of a link's ``each``: the same for every link (but
    ``Multiplexed``'s own ``submit``)."""

    async def each(self, calls: Sequence[Call]) -> list[Any]:
        """Every call's reply, or its error (``ResponseError``) in its place."""
        raise NotImplementedError

    async def call(self, *args: Any) -> Any:
        """One command's reply; an error reply raises ``ResponseError``."""
        return (await self.calls([args]))[0]

    async def calls(self, calls: Sequence[Call]) -> list[Any]:
        """The replies of several commands sent back to back (no transaction); the first error is raised."""
        replies = await self.each(calls)
        for reply in replies:
            if isinstance(reply, Exception):
                raise reply
        return replies

    def submit(
        self, game_id: str, partitions: int, field: bytes, message: bytes
    ) -> asyncio.Future[list[Any]]:
        """Submit a command (``resp.submit_calls``): a task sends the two calls (on a Cluster, each to its own
        master); it is the future of their replies."""
        return held_task(self.each(submit_calls(game_id, partitions, field, message)))


class Multiplexed(Calls):
    """One connection shared by many tasks; replies come back in the order the calls were sent."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.client_id = 0
        """Redis's id of the current connection (for ``CLIENT UNBLOCK``)."""
        self._transport: asyncio.Transport | None = None
        self._connection: Any = None
        self._waiting: deque[asyncio.Future[Any] | Gathered] = deque()
        self._outgoing: list[bytes] = []
        self._flush_due = False
        self._connecting = asyncio.Lock()

    async def each(self, calls: Sequence[Call]) -> list[Any]:
        replies = await self.raw_calls(calls)
        return [ResponseError(str(r)) if isinstance(r, hiredis.ReplyError) else r for r in replies]

    async def raw_calls(self, calls: Sequence[Call]) -> list[Any]:
        """Like ``calls``, but an error reply stays in its place as ``hiredis.ReplyError`` (on a Cluster a
        ``MOVED`` for one call must not hide the replies of the others)."""
        await self.connect()
        futures = self.send(calls)
        try:
            return [await future for future in futures]
        except BaseException:
            for future in futures:  # the rest failed alike: mark their errors as seen
                if future.done() and not future.cancelled():
                    future.exception()
            raise

    def send(self, calls: Sequence[Call]) -> list[asyncio.Future[Any]]:
        """Queue the calls for this turn's write, without waiting: one future per reply (an error reply is its
        ``hiredis.ReplyError`` result). Only while connected (``connect``)."""
        return self.send_packed(pack_calls(calls), len(calls))

    def send_packed(self, data: bytes, replies: int, at_once: bool = False) -> list[asyncio.Future[Any]]:
        """``send`` for commands already in RESP (``data``), which ``replies`` replies answer; ``at_once``:
        written now, with any queued before."""
        transport = self._ready()
        loop = asyncio.get_running_loop()
        futures = [loop.create_future() for _ in range(replies)]
        self._waiting.extend(futures)
        self._queue(transport, data, at_once)
        return futures

    def send_gathered(self, calls: Sequence[Call]) -> asyncio.Future[list[Any]]:
        """``send`` with one future for all the calls' replies, in order (an error reply in its place as its
        ``hiredis.ReplyError``). Only while connected."""
        return self.send_packed_gathered(pack_calls(calls), len(calls))

    def send_packed_gathered(self, data: bytes, replies: int) -> asyncio.Future[list[Any]]:
        """``send_gathered`` for commands already in RESP (``data``), which ``replies`` replies answer."""
        transport = self._ready()
        gathered = Gathered(asyncio.get_running_loop().create_future(), replies)
        self._waiting.extend([gathered] * replies)
        self._queue(transport, data, at_once=False)
        return gathered.future

    def submit(
        self, game_id: str, partitions: int, field: bytes, message: bytes
    ) -> asyncio.Future[list[Any]]:
        """Submit a command: the results check of ``field`` and the ``XADD`` of ``message`` onto the game's
        inbox partition (``resp.submit_calls``); returns the future of their two replies.
        Connected, they join this turn's write and the future is done as the second is parsed; else a task
        connects first."""
        if self._transport is not None:
            return self.send_packed_gathered(packed_submit(game_id, partitions, field, message), 2)
        return held_task(self.raw_calls(submit_calls(game_id, partitions, field, message)))

    def _ready(self) -> asyncio.Transport:
        if self._transport is None:
            raise RedisConnectionError("the link is not connected")
        return self._transport

    def _queue(self, transport: asyncio.Transport, data: bytes, at_once: bool) -> None:
        """Write ``data`` now (``at_once``), else with everything queued in this turn of the loop."""
        self._outgoing.append(data)
        if at_once:
            self._flush(transport)
        elif not self._flush_due:
            self._flush_due = True
            asyncio.get_running_loop().call_soon(self._flush, transport)

    async def close(self) -> None:
        self._drop(RedisConnectionError("the link was closed"))

    def _flush(self, transport: asyncio.Transport) -> None:
        self._flush_due = False  # a flush still scheduled finds nothing to write
        if transport is self._transport and self._outgoing:
            transport.write(b"".join(self._outgoing))
        self._outgoing.clear()

    async def connect(self) -> None:
        """Connect now if not connected (``calls`` does so itself)."""
        if self._transport is None:
            await self._connect()

    async def _connect(self) -> None:
        # Apart from ``connect``: there mypy would narrow ``_transport`` to None past its first check, and
        # mypyc's compiled check after the lock would then refuse the transport another task connected.
        async with self._connecting:
            if self._transport is not None:
                return
            # redis-py opens the connection and does the handshake (AUTH, SELECT) its URL asks for; then
            # the replies go to a protocol of the link's own.
            pool: Any = async_client(self.url).connection_pool
            connection = pool.make_connection()
            await connection.connect()
            await connection.send_command("CLIENT", "ID")
            self.client_id = int(await connection.read_response())
            transport = connection._writer.transport
            transport.set_protocol(_Replies(self, transport))
            self._connection = connection
            self._transport = transport

    def _settle(self, reply: Any) -> None:
        waiter = self._waiting.popleft()
        if isinstance(waiter, Gathered):
            waiter.take(reply)
        elif not waiter.done():
            waiter.set_result(reply)

    def _lost(self, transport: asyncio.BaseTransport, error: Exception) -> None:
        if transport is self._transport:
            self._drop(error)

    def _drop(self, error: Exception) -> None:
        """Forget the connection; every call still waiting fails (its command may or may not have run)."""
        if self._transport is not None:
            self._transport.close()
        self._transport = None
        self._connection = None
        self._outgoing.clear()
        waiting, self._waiting = self._waiting, deque()
        for waiter in waiting:
            if isinstance(waiter, Gathered):
                waiter.fail(error)
            elif not waiter.done():
                waiter.set_exception(error)


class _Replies(asyncio.Protocol):
    """Parses a link's replies as they arrive and settles its calls, first sent first."""

    def __init__(self, link: Multiplexed, transport: asyncio.BaseTransport) -> None:
        self.link = link
        self.transport = transport
        self.parser = hiredis.Reader()

    def data_received(self, data: bytes) -> None:
        parser, settle = self.parser, self.link._settle
        try:
            parser.feed(data)
            reply = parser.gets()
            while reply is not False:
                settle(reply)
                reply = parser.gets()
        except Exception as exc:  # a reply nobody waits for, or bytes that are no RESP: the link is lost
            self.link._lost(self.transport, RedisConnectionError(f"the link broke: {exc!r}"))

    def eof_received(self) -> bool | None:
        self.link._lost(self.transport, RedisConnectionError("Redis closed the connection"))
        return None

    def connection_lost(self, exc: Exception | None) -> None:
        self.link._lost(self.transport, RedisConnectionError(str(exc or "Redis closed the connection")))


def held_task(replies: Any) -> asyncio.Future[list[Any]]:
    """Run ``replies`` (a coroutine of a list of replies) as a task, held until done (the loop keeps only
    weak references to tasks): the ``submit`` of a link that cannot gather replies as they are parsed."""
    task: asyncio.Future[list[Any]] = asyncio.ensure_future(replies)
    _held.add(task)
    task.add_done_callback(_held.discard)
    return task


_held: set[asyncio.Future[list[Any]]] = set()
