"""What a move's path asks of Redis, as two interfaces: the gateway's ``Link`` and the fold worker's
``Appender``. Each has a plain implementation on redis-py (``plain.py``) and a fast one (``multiplexed.py``,
``pipelined.py``) with its Cluster form; ``tests/integration/transport/`` runs one contract over all of them.

- **Submit a command** (``Link.submit``): the results check of the command's id and the ``XADD`` onto its
  game's inbox partition; ``submit`` returns the future of their two replies (the result of an id used
  before, or ``None``, then the stream entry's id): the link calls nothing of its caller.
- **Read feeds** (``Link.each``/``Link.calls``): the feeds' ``XREAD``s and any other call of the gateway,
  replies in the order of the calls. The hub's one blocking read of every feed on a standalone Redis is the
  fast link's own (``Multiplexed.send_packed`` with ``CLIENT UNBLOCK`` by ``client_id``).
- **Append a batch** (``Appender``): one script call per game, packed by ``pack_appends``, written by
  ``send_packed`` before the replies of the batch before are read, and read back in order by ``receive``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Sequence
from typing import Any, Protocol

from events.errors import EventsError
from events.transport.resp import Call

TRANSPORTS = ("fast", "plain")
"""``HARBORMASTER_TRANSPORT``: ``fast`` (the default) or ``plain`` (redis-py alone, for a debugger)."""


class UnknownTransport(EventsError):
    """``HARBORMASTER_TRANSPORT`` names no transport."""


def transport_named(name: str) -> str:
    """``name`` if it is one of ``TRANSPORTS``; raises ``UnknownTransport`` otherwise."""
    if name not in TRANSPORTS:
        raise UnknownTransport(f"HARBORMASTER_TRANSPORT is fast or plain, not {name!r}")
    return name


AppendCall = tuple[tuple[str, ...], Sequence[Any]]
"""One script call of an append: the game's keys and the script's arguments."""


class Link(Protocol):
    """The gateway's calls to Redis (asyncio)."""

    async def call(self, *args: Any) -> Any:
        """One command's reply; an error reply raises ``ResponseError``."""

    async def calls(self, calls: Sequence[Call]) -> list[Any]:
        """The replies of several commands sent back to back (no transaction); the first error is raised."""

    async def each(self, calls: Sequence[Call]) -> list[Any]:
        """Every call's reply, or its error (``ResponseError``) in its place."""

    def submit(
        self, game_id: str, partitions: int, field: bytes, message: bytes
    ) -> asyncio.Future[list[Any]]:
        """Submit a command (``resp.submit_calls``); returns the future of its two replies in order (an error
        reply as an ``Exception`` in its place), or of the ``ConnectionError`` that lost them."""

    async def close(self) -> None:
        """Drop the connections; calls still waiting fail."""


class Appender(Protocol):
    """The fold worker's appends (blocking): batches written ahead of the replies of the ones before."""

    outstanding: int
    """Replies written for and not read yet."""

    def pack_appends(self, calls: Iterable[AppendCall]) -> Any:
        """The batch's calls, ready for ``send_packed``."""

    def send_packed(self, payload: Any, count: int) -> None:
        """Write the batch of ``count`` calls without waiting for their replies."""

    def receive(self, count: int) -> list[Any]:
        """The oldest unread batch's ``count`` replies, in order; an error reply comes back as its exception
        (``NoScriptError`` after the server lost its scripts: the next batch loads the script again)."""

    def close(self) -> None:
        """Drop the connections (replies still outstanding are lost with them)."""
