"""A seat's command, from HTTP or the WebSocket: one path, the same checks, codes and idempotency.

The seat comes from the caller's token (checked once per request, or once per WebSocket), never from the
body. A command id answers once: a repeated id gets the result recorded for its first use and is never
applied twice (the fold worker's append refuses a recorded id; the gateway only saves the round trip).
An id is the seat's own (``keys.result_field``): another seat, a bot or the server may use the same one.
"""

from __future__ import annotations

import asyncio
import functools
import uuid
from collections.abc import Callable
from typing import Any

import msgspec
from hiredis import ReplyError
from redis.exceptions import ResponseError

from events import codec, keys
from events.envelope import CommandRecord
from services.gateway import strict
from services.gateway.context import Gateway
from services.gateway.fanout import GameFeed
from services.gateway.feed_reads import bulk
from services.gateway.requests import COMMAND_ID, ApiError
from services.gateway.wire import Call, ReplySink, Wire


def parse_command(feed: GameFeed, raw: bytes, command_id: str | None) -> tuple[bytes, str]:
    """The command in canonical JSON and its id (a fresh one if none was given); refusals as ``ApiError``."""
    try:
        command = codec.decode_command(feed.game, raw)
    except (msgspec.ValidationError, msgspec.DecodeError) as exc:
        raise ApiError(422, "invalid_command", f"not a {feed.game.key} command: {exc}") from exc
    canonical = codec.encode_command(command)
    # A command sent as ``/legal`` lists it is its own canonical form and so has no unknown field; any
    # other is walked field by field (as unknown options are refused: a typo is no default).
    unknown = None if canonical == raw else strict.unknown_field(raw, feed.game.Command)
    if unknown is not None:
        raise ApiError(422, "invalid_command", f"not a {feed.game.key} command: unknown field {unknown!r}")
    command_id = command_id or uuid.uuid4().hex
    if not COMMAND_ID.match(command_id):
        raise ApiError(400, "bad_command_id", "a command id is 1 to 64 letters, digits or _.:-")
    return canonical, command_id


async def enqueue(
    gateway: Gateway, feed: GameFeed, seat: int, command: bytes, command_id: str
) -> CommandRecord | None:
    """Put the command on its game's partition; returns the earlier result if its id was used before.

    While the game is live the results check and the ``XADD`` travel in one round trip: should the id turn
    out to be used, the fold worker acknowledges the second copy without applying it.
    """
    if feed.finished:
        existing = await gateway.redis.hget(
            keys.results(feed.game_id), keys.result_field("seat", seat, command_id)
        )
        if existing is None:
            raise ApiError(409, "game_finished", "the game is over")
        return codec.decode_record(existing)
    field, message = _enqueued_message(gateway, feed, seat, command, command_id)
    partitions = gateway.services.bus.partitions
    existing, _ = await gateway.wire.calls(enqueue_calls(feed.game_id, partitions, field, message))
    _submitted(gateway, feed)
    return None if existing is None else codec.decode_record(existing)


Submitted = Callable[[CommandRecord | None, BaseException | None], None]
"""Told a submit's outcome: the earlier result of a used id, or None for a new command; or the failure."""


def submit(
    gateway: Gateway, feed: GameFeed, seat: int, command: bytes, command_id: str, then: Submitted
) -> None:
    """``enqueue`` begun in this turn, its outcome given to ``then``: on a live game and a connected wire
    its calls join this turn's write to Redis and ``then`` is called as their replies are parsed (a task, or
    futures, would each cost a turn of the loop); otherwise ``enqueue`` runs as a task."""
    wire = gateway.wire
    if feed.finished or not isinstance(wire, Wire) or not wire.connected:
        task = asyncio.ensure_future(enqueue(gateway, feed, seat, command, command_id))
        task.add_done_callback(lambda done: _tell(then, done))
        return
    field, message = _enqueued_message(gateway, feed, seat, command, command_id)
    packed = packed_enqueue(feed.game_id, gateway.services.bus.partitions, field, message)
    wire.send_packed_to(packed, 2, _Enqueued(then))
    _submitted(gateway, feed)


def _tell(then: Submitted, done: asyncio.Future[CommandRecord | None]) -> None:
    if not done.cancelled():
        failed = done.exception()
        then(done.result() if failed is None else None, failed)


def _enqueued_message(
    gateway: Gateway, feed: GameFeed, seat: int, command: bytes, command_id: str
) -> tuple[bytes, bytes]:
    """The command's result field (its idempotency key) and its inbox message, encoded."""
    message = gateway.services.bus.message(feed.game_id, seat, command, command_id)
    return keys.result_field("seat", seat, command_id).encode(), codec.encode_inbox(message)


def enqueue_calls(game_id: str, partitions: int, field: bytes, message: bytes) -> list[Call]:
    """The results check of ``field`` and the ``XADD`` of ``message`` onto the game's partition."""
    partition = keys.partition_for(game_id, partitions)
    return [("HGET", keys.results(game_id), field), ("XADD", keys.inbox(partition), "*", "m", message)]


def packed_enqueue(game_id: str, partitions: int, field: bytes, message: bytes) -> bytes:
    """``enqueue_calls`` in RESP, from parts packed once per game: a move over a socket is packed in one
    step, not argument by argument (hiredis's ``pack_command`` took ~1 us a call)."""
    check, append = _enqueue_heads(game_id, partitions)
    return b"%s$%d\r\n%s\r\n%s$%d\r\n%s\r\n" % (check, len(field), field, append, len(message), message)


@functools.lru_cache(maxsize=1 << 14)
def _enqueue_heads(game_id: str, partitions: int) -> tuple[bytes, bytes]:
    """The leading parts of ``enqueue_calls``' two commands in RESP: the same for every command of a game."""
    partition = keys.partition_for(game_id, partitions)
    return (
        b"*3\r\n$4\r\nHGET\r\n" + bulk(keys.results(game_id).encode()),
        b"*5\r\n$4\r\nXADD\r\n" + bulk(keys.inbox(partition).encode()) + b"$1\r\n*\r\n$1\r\nm\r\n",
    )


def _submitted(gateway: Gateway, feed: GameFeed) -> None:
    gateway.stats.submitted += 1
    gateway.hub.expect_news(feed.game_id)  # on a Cluster the feeds are polled: look for the result soon


class _Enqueued(ReplySink):
    """``enqueue``'s outcome from its two replies (the results check, then the ``XADD``), told once."""

    __slots__ = ("existing", "replies", "then")

    def __init__(self, then: Submitted) -> None:
        self.then: Submitted | None = then
        self.replies = 0
        self.existing: Any = None

    def reply(self, value: Any) -> None:
        self.replies += 1
        if self.replies == 1:
            self.existing = value
            return
        then, self.then = self.then, None
        if then is None:
            return
        error = next((r for r in (self.existing, value) if isinstance(r, ReplyError)), None)
        if error is not None:
            then(None, ResponseError(str(error)))
        else:
            then(None if self.existing is None else codec.decode_record(self.existing), None)

    def fail(self, error: Exception) -> None:
        then, self.then = self.then, None
        if then is not None:
            then(None, error)
