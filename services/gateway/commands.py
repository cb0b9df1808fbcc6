"""A seat's command, from HTTP or the WebSocket: one path, the same checks, codes and idempotency.

The seat comes from the caller's token (checked once per request, or once per WebSocket), never from the
body. A command id answers once: a repeated id gets the result recorded for its first use and is never
applied twice (the fold worker's append refuses a recorded id; the gateway only saves the round trip).
An id is the seat's own (``keys.result_field``): another seat, a bot or the server may use the same one.
"""

from __future__ import annotations

import uuid

import msgspec

from events import codec, keys
from events.envelope import CommandRecord
from services.gateway import strict
from services.gateway.context import Gateway
from services.gateway.fanout import GameFeed
from services.gateway.requests import COMMAND_ID, ApiError


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
    results_key, field = keys.results(feed.game_id), keys.result_field("seat", seat, command_id)
    if feed.finished:
        existing = await gateway.redis.hget(results_key, field)
        if existing is None:
            raise ApiError(409, "game_finished", "the game is over")
        return codec.decode_record(existing)
    bus = gateway.services.bus
    message = bus.message(feed.game_id, seat, command, command_id)
    partition = keys.partition_for(feed.game_id, bus.partitions)
    existing, _ = await gateway.wire.calls(
        [
            ("HGET", results_key, field),
            ("XADD", keys.inbox(partition), "*", "m", codec.encode_inbox(message)),
        ]
    )
    gateway.stats.submitted += 1
    gateway.hub.expect_news(feed.game_id)  # on a Cluster the feeds are polled: look for the result soon
    return None if existing is None else codec.decode_record(existing)
