"""A connection of the fold worker's own for its append scripts, written to before earlier replies are read.

redis-py's pipeline sends a batch and then waits for every reply. The worker instead sends batch k+1's
appends while Redis is still running batch k's, and decides in the meantime; the replies come back in
the order the calls were sent, so reading them later is safe. The calls are packed by hiredis in C:
packing them argument by argument in Python cost more than the scripts themselves.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import redis

_pack: Callable[[Any], bytes] | None
try:
    from hiredis import pack_command as _pack
except ImportError:  # pragma: no cover - hiredis is a dependency; this keeps a bare redis-py working
    _pack = None

Call = tuple[Any, ...]
"""One Redis command with its arguments (``bytes``, ``str`` or ``int``)."""


class Wire:
    """A dedicated connection: calls are written at once, their replies read later, in the order sent."""

    def __init__(self, client: redis.Redis) -> None:
        self.client = client
        self._connection: Any = None  # redis-py's Connection, untyped
        self.outstanding = 0

    def pack(self, calls: Sequence[Call]) -> bytes:
        """The calls as Redis's protocol bytes, ready for ``send_packed``."""
        if _pack is not None:
            return b"".join([_pack(c) for c in calls])
        return b"".join(self._connect().pack_commands(calls))

    def send(self, calls: Sequence[Call]) -> None:
        """Write the calls without waiting for their replies."""
        if calls:
            self.send_packed(self.pack(calls), len(calls))

    def send_packed(self, payload: bytes, count: int) -> None:
        """Write ``count`` calls packed by ``pack`` without waiting for their replies."""
        if not count:
            return
        connection = self._connect()
        try:
            connection.send_packed_command([payload], check_health=False)
        except Exception:
            self.close()
            raise
        self.outstanding += count

    def receive(self, count: int) -> list[Any]:
        """The next ``count`` replies, in the order sent; an error reply comes back as the exception."""
        connection = self._connect()
        replies: list[Any] = []
        try:
            for _ in range(count):
                try:
                    replies.append(connection.read_response())
                except redis.ResponseError as exc:
                    replies.append(exc)
                finally:
                    self.outstanding -= 1
        except Exception:
            self.close()
            raise
        return replies

    def close(self) -> None:
        """Drop the connection (replies still outstanding on it are lost with it)."""
        if self._connection is not None:
            self._connection.disconnect()
            self.client.connection_pool.release(self._connection)
            self._connection = None
        self.outstanding = 0

    def _connect(self) -> Any:
        if self._connection is None:
            self._connection = self.client.connection_pool.get_connection()
        return self._connection


class ScriptWire(Wire):
    """A ``Wire`` for ``EVALSHA`` calls of one script."""

    def __init__(self, client: redis.Redis, script: str) -> None:
        super().__init__(client)
        self.script = script
        self.sha = client.script_load(script)

    def call(self, keys: Sequence[str], args: Sequence[Any]) -> Call:
        """The command that runs the script on ``keys`` with ``args``."""
        return ("EVALSHA", self.sha, len(keys), *keys, *args)

    def receive(self, count: int) -> list[Any]:
        """As ``Wire.receive``. ``NOSCRIPT`` (the server lost its script cache) loads the script again; the
        calls that got it are answered with the error, so the worker decides them again."""
        replies = super().receive(count)
        if any(isinstance(r, redis.exceptions.NoScriptError) for r in replies):
            self.sha = self.client.script_load(self.script)
        return replies
