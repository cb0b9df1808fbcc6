"""A seat's command, from HTTP or the WebSocket: one path, the same checks, codes and idempotency.

The seat comes from the caller's token (checked once per request, or once per WebSocket), never from the
body. A command id answers once: a repeated id gets the result recorded for its first use and is never
applied twice (the fold worker's append refuses a recorded id; the gateway only saves the round trip).
An id is the seat's own (``keys.result_field``): another seat may use the same one. The server's own ids
(``timeout-``, ``bot-``, ``setup-``: ``events/command_ids.py``) are refused with 400 ``reserved_command_id``.
"""

from __future__ import annotations

import asyncio
import uuid

import msgspec

from domain.seat_control import CLOCK_ONLY, OWN_ENDPOINTS
from domain.take_back import TakeBack
from events import codec, keys
from events.command_ids import reserved_message, reserved_prefix
from services.gateway.access.limits import retry_after
from services.gateway.context import Gateway
from services.gateway.feeds.fanout import GameFeed
from services.gateway.feeds.pending import PendingCommand
from services.gateway.feeds.viewer import Viewer
from services.gateway.wire import json_checks
from services.gateway.wire.errors import ApiError
from services.gateway.wire.frames import COMMAND_ID


def parse_command(feed: GameFeed, raw: bytes, command_id: str | None) -> tuple[bytes, str]:
    """The command in canonical JSON and its id (a fresh one if none was given); refusals as ``ApiError``."""
    try:
        command = codec.decode_command(feed.game, raw)
    except (msgspec.ValidationError, msgspec.DecodeError) as exc:
        raise ApiError(422, "invalid_command", f"not a {feed.game.key} command: {exc}") from exc
    if type(command).__name__ in CLOCK_ONLY:  # what the clock does to a seat: a player's would fake it
        raise ApiError(403, "clock_only_command", f"only the table's clock sends {type(command).__name__}")
    if type(command).__name__ in OWN_ENDPOINTS:  # only a table's game has a stand-in for a resigned seat
        raise ApiError(
            409, "seat_command_endpoint", "resign, take a seat back or vote by their own endpoints"
        )
    if feed.meta.tournament and isinstance(command, TakeBack):  # a tournament's moves are final (issue 44)
        raise ApiError(409, "take_back_off", "moves are not taken back in a tournament game")
    canonical = codec.encode_command(command)
    # A command sent as ``/legal`` lists it is its own canonical form and so has no unknown field; any
    # other is walked field by field (as unknown options are refused: a typo is no default).
    unknown = None if canonical == raw else json_checks.unknown_field(raw, feed.game.Command)
    if unknown is not None:
        raise ApiError(422, "invalid_command", f"not a {feed.game.key} command: unknown field {unknown!r}")
    command_id = command_id or uuid.uuid4().hex
    if not COMMAND_ID.match(command_id):
        raise ApiError(400, "bad_command_id", "a command id is 1 to 64 letters, digits or _.:-")
    reserved = reserved_prefix(command_id)
    if reserved is not None:  # the log reads a timeout- id as the clock's: a player's would pass as absent
        raise ApiError(400, "reserved_command_id", reserved_message(reserved))
    return canonical, command_id


def charge_command(gateway: Gateway, address: str, token_key: str | None) -> None:
    """Count one command (or another write: a game, a table) against the address's rate and the seat
    token's (``token_key``: the token's ``auth.digest``, taken once per socket); ``ApiError`` 429 when over."""
    if (wait_s := gateway.limits.address(address)) > 0:
        raise rate_limited(wait_s, "address")
    if token_key is not None and (wait_s := gateway.limits.token(token_key)) > 0:
        raise rate_limited(wait_s, "seat token")


def rate_limited(wait_s: float, who: str) -> ApiError:
    """The 429 refusal of a client over its command rate."""
    message = f"too many requests from this {who}; retry in {wait_s:.1f} s"
    return ApiError(429, "rate_limited", message, {"Retry-After": retry_after(wait_s)})


def submit(
    gateway: Gateway,
    feed: GameFeed,
    seat: int,
    command: bytes,
    command_id: str,
    viewer: Viewer | None = None,
    listen: bool = True,
    field: str | None = None,
) -> PendingCommand:
    """Put the command on its game's partition; returns it pending, to be awaited (``PendingCommand``), or
    answered on ``viewer``'s socket. ``listen``: be settled by the feed when it reads the result (not for a
    request that will not wait for it). ``field``: its ``keys.result_field``, if the caller has it already.

    While the game is live the results check and the ``XADD`` travel in one round trip (``interface.Link.submit``:
    on the fast link one future for both replies, done as the second is parsed): should the id turn
    out to be used, the fold worker acknowledges the second copy without applying it. Once it is over, only
    an id used before has an answer (its result).
    """
    field = field or keys.result_field("seat", seat, command_id)  # the seat's own id: scoped to its sender
    pending = PendingCommand(feed, field, command_id, viewer)
    if listen:
        pending.listen()  # before the submit: the result may be read before its replies are
    if feed.finished:
        task = asyncio.ensure_future(_settle_when_over(gateway, pending))
        _looked_up.add(task)  # held until done: the loop keeps only weak references to tasks
        task.add_done_callback(_looked_up.discard)
        return pending
    message = gateway.services.bus.message(feed.game_id, seat, command, command_id)
    replies = gateway.link.submit(
        feed.game_id, gateway.services.bus.partitions, field.encode(), codec.encode_inbox(message)
    )
    replies.add_done_callback(pending.replied)  # called by the loop: the link calls nothing of the gateway
    gateway.stats.submitted += 1
    gateway.hub.reader.expect_news(feed.game_id)  # on a Cluster, feeds are polled: look for the result soon
    return pending


_looked_up: set[asyncio.Future[None]] = set()


async def _settle_when_over(gateway: Gateway, pending: PendingCommand) -> None:
    try:
        existing = await gateway.redis.hget(keys.results(pending.feed.game_id), pending.field)
    except Exception as exc:  # told, not raised: nobody awaits this task
        pending.fail(exc)
        return
    if existing is None:
        pending.fail(ApiError(409, "game_finished", "the game is over"))
    else:
        pending.settle(codec.decode_record(existing))
