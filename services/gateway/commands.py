"""A seat's command, from HTTP or the WebSocket: one path, the same checks, codes and idempotency.

The seat comes from the caller's token (checked once per request, or once per WebSocket), never from the
body. A command id answers once: a repeated id gets the result recorded for its first use and is never
applied twice (the fold worker's append refuses a recorded id; the gateway only saves the round trip).
An id is the seat's own (``keys.result_field``): another seat, a bot or the server may use the same one.
"""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import msgspec
from hiredis import ReplyError
from redis.exceptions import ResponseError

from events import codec, keys
from events.envelope import CommandRecord
from services.gateway import strict
from services.gateway.context import Gateway
from services.gateway.fanout import GameFeed
from services.gateway.requests import COMMAND_ID, ApiError
from services.gateway.wire import Call, Wire


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
    existing, _ = await gateway.wire.calls(_enqueue_calls(gateway, feed, seat, command, command_id))
    _submitted(gateway, feed)
    return None if existing is None else codec.decode_record(existing)


def submit(
    gateway: Gateway, feed: GameFeed, seat: int, command: bytes, command_id: str
) -> asyncio.Future[CommandRecord | None]:
    """``enqueue`` begun in this turn: on a live game and a connected wire its calls join this turn's write
    to Redis (a task would send them a turn later); otherwise ``enqueue`` runs as a task."""
    wire = gateway.wire
    if feed.finished or not isinstance(wire, Wire) or not wire.connected:
        return asyncio.ensure_future(enqueue(gateway, feed, seat, command, command_id))
    existing, added = wire.send(_enqueue_calls(gateway, feed, seat, command, command_id))
    _submitted(gateway, feed)
    done: asyncio.Future[CommandRecord | None] = asyncio.get_running_loop().create_future()
    added.add_done_callback(lambda _: _settle_submit(done, existing, added))
    return done


def _enqueue_calls(
    gateway: Gateway, feed: GameFeed, seat: int, command: bytes, command_id: str
) -> list[Call]:
    bus = gateway.services.bus
    message = bus.message(feed.game_id, seat, command, command_id)
    partition = keys.partition_for(feed.game_id, bus.partitions)
    return [
        ("HGET", keys.results(feed.game_id), keys.result_field("seat", seat, command_id)),
        ("XADD", keys.inbox(partition), "*", "m", codec.encode_inbox(message)),
    ]


def _submitted(gateway: Gateway, feed: GameFeed) -> None:
    gateway.stats.submitted += 1
    gateway.hub.expect_news(feed.game_id)  # on a Cluster the feeds are polled: look for the result soon


def _settle_submit(
    done: asyncio.Future[CommandRecord | None], existing: asyncio.Future[Any], added: asyncio.Future[Any]
) -> None:
    """``enqueue``'s outcome from its two replies (both are in: Redis answers in order)."""
    if done.done():
        return
    failed = existing.exception() or added.exception()
    if failed is None:
        reply = existing.result()
        failed = next(
            (ResponseError(str(r)) for r in (reply, added.result()) if isinstance(r, ReplyError)), None
        )
    if failed is not None:
        done.set_exception(failed)
    else:
        done.set_result(None if reply is None else codec.decode_record(reply))
