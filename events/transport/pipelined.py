"""The fold worker's fast link: a connection of its own for its append scripts, written to before earlier
replies are read. ``plain.PlainAppender`` does the same on redis-py, and is the reference it is tested
against.

redis-py's pipeline sends a batch and then waits for every reply. The worker instead sends batch k+1's
appends while Redis is still running batch k's, and decides in the meantime; the replies come back in
the order the calls were sent, so reading them later is safe. The calls are packed by hiredis in C:
packing them argument by argument in Python cost more than the scripts themselves. The replies are read
by a hiredis reader of the link's own, straight from the socket: redis-py's ``read_response`` goes
through several layers of Python for each reply (2.2 against 1.2 us of CPU a reply, 33 replies a batch).
"""

from __future__ import annotations

import socket
from collections.abc import Iterable, Sequence
from typing import Any

import hiredis
import redis

from events.replica_ack import ReplicaAck, confirmed
from events.transport.resp import Call, pack, pack_calls, pack_script_call, script_call

READ_SIZE = 65536
SEND_BUFFER = 4 << 20
"""What a Unix socket of a link may hold unread (the kernel caps it at ``net.core.wmem_max``)."""
_NOT_YET = object()
"""What the link's reader returns while a reply is incomplete (not ``False``: RESP3 has a boolean false)."""


class Pipelined:
    """A dedicated connection: calls are written at once, their replies read later, in the order sent."""

    def __init__(self, client: redis.Redis, replica_ack: ReplicaAck | None = None) -> None:
        self.client = client
        self._connection: Any = None  # redis-py's Connection, untyped
        self._reader: Any = None
        """hiredis's reader of this connection's replies (after redis-py's handshake, it reads every one)."""
        self.outstanding = 0
        self._ack = replica_ack if replica_ack is not None and replica_ack.active else None
        """With a replica acknowledgement, each write ends with its ``WAIT``/``WAITAOF`` and each read of
        its replies checks that one (``events/replica_ack.py``)."""
        self._ack_call = [pack(self._ack.command())] if self._ack is not None else []

    def pack(self, calls: Sequence[Call]) -> bytes:
        """The calls as Redis's protocol bytes, ready for ``send_packed``."""
        return pack_calls(calls)

    def send(self, calls: Sequence[Call]) -> None:
        """Write the calls without waiting for their replies."""
        self.send_packed(self.pack(calls), len(calls))  # none: nothing written

    def send_packed(self, payload: bytes, count: int) -> None:
        """Write ``count`` calls packed by ``pack`` without waiting for their replies."""
        if not count:
            return
        connection = self._connect()
        try:
            connection.send_packed_command([payload, *self._ack_call], check_health=False)
        except Exception:
            self.close()
            raise
        self.outstanding += count + (self._ack is not None)

    def receive(self, count: int) -> list[Any]:
        """The next ``count`` replies, in the order sent; an error reply comes back as the exception."""
        connection = self._connect()
        wanted = count + (self._ack is not None)
        try:
            replies = self._read_replies(connection._sock, wanted)
        except Exception:
            self.close()
            raise
        self.outstanding -= wanted
        return replies if self._ack is None else confirmed(replies, self._ack)

    def _read_replies(self, sock: Any, count: int) -> list[Any]:
        """``count`` replies parsed by the link's reader, receiving from the socket as they arrive."""
        reader = self._reader
        replies: list[Any] = []
        while len(replies) < count:
            reply = reader.gets()
            if reply is _NOT_YET:
                received = sock.recv(READ_SIZE)
                if not received:
                    raise redis.ConnectionError("Redis closed the connection")
                reader.feed(received)
            else:
                replies.append(reply)
        return replies

    def close(self) -> None:
        """Drop the connection (replies still outstanding on it are lost with it)."""
        if self._connection is not None:
            self._connection.disconnect()
            self.client.connection_pool.release(self._connection)
            self._connection = None
        self._reader = None
        self.outstanding = 0

    def _connect(self) -> Any:
        if self._connection is None:
            connection: Any = self.client.connection_pool.get_connection()
            connection.connect()  # the handshake's replies are read by redis-py; every later one by us
            _widen_send_buffer(connection._sock)
            self._connection = connection
            self._reader = _reply_reader()
        return self._connection


class ScriptPipeline(Pipelined):
    """A ``Pipelined`` for ``EVALSHA`` calls of one script: the fold worker's ``interface.Appender``."""

    def __init__(self, client: redis.Redis, script: str, replica_ack: ReplicaAck | None = None) -> None:
        super().__init__(client, replica_ack)
        self.script = script
        self.sha = client.script_load(script)

    def call(self, keys: Sequence[str], args: Sequence[Any]) -> Call:
        """The command that runs the script on ``keys`` with ``args``."""
        return script_call(self.sha, keys, args)

    def pack_call(self, keys: tuple[str, ...], args: Sequence[Any]) -> bytes:
        """``call(keys, args)`` as protocol bytes, for ``send_packed``."""
        return pack_script_call(self.sha, keys, args)

    def pack_appends(self, calls: Iterable[tuple[tuple[str, ...], Sequence[Any]]]) -> bytes:
        """Several ``(keys, args)`` calls as one payload for ``send_packed`` (``pipelined_cluster.py``
        packs them per slot instead)."""
        return b"".join([pack_script_call(self.sha, keys, args) for keys, args in calls])

    def receive(self, count: int) -> list[Any]:
        """As ``Pipelined.receive``. ``NOSCRIPT`` (the server lost its script cache) loads the script again; the
        calls that got it are answered with the error, so the worker decides them again."""
        replies = super().receive(count)
        if any(isinstance(r, redis.exceptions.NoScriptError) for r in replies):
            self.sha = self.client.script_load(self.script)
        return replies


def _widen_send_buffer(sock: socket.socket) -> None:
    """Let a Unix socket queue a whole batch. It holds 208 KB by default, where loopback TCP grows to 4 MB:
    a batch of appends larger than that held the worker in its write until Redis had read most of it, and
    the worker's overlap of deciding with Redis's appending was lost (1 worker draining a full inbox:
    24,500-28,800 commands/s, against 46,700-55,800 with 4 MB and 39,900-44,700 over TCP)."""
    if sock.family == socket.AF_UNIX:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SEND_BUFFER)


def _reply_error(message: str) -> redis.ResponseError:
    """An error reply as redis-py's exception for it (the ones the worker tells apart)."""
    if message.startswith("NOSCRIPT"):
        return redis.exceptions.NoScriptError(message)
    return redis.ResponseError(message)


def _reply_reader() -> Any:
    """A hiredis reader that turns error replies into exceptions it returns (not raises)."""
    return hiredis.Reader(
        protocolError=redis.exceptions.InvalidResponse, replyError=_reply_error, notEnoughData=_NOT_YET
    )
