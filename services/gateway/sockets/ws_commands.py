"""What a game socket's client sends: pings, answered with ``pong``, and a seat's commands, answered with
``result`` frames (the same checks, codes and idempotency as over HTTP, ``commands.py``).

Where the server allows, text frames are taken as they arrive (``protocol.TextReader``); otherwise, and for
every frame that way leaves, from the socket task's queue. A frame too large, too deep or unknown ends the
socket with its close code.
"""

from __future__ import annotations

import msgspec
from starlette.websockets import WebSocket

from events import keys
from services.gateway.commands import charge_command, parse_command, submit
from services.gateway.context import Gateway
from services.gateway.feeds.fanout import GameFeed, encode_text
from services.gateway.feeds.pending import PendingCommand, rejection_text
from services.gateway.feeds.viewer import Viewer
from services.gateway.sockets.protocol import flood_reason, socket_protocol
from services.gateway.wire import json_checks
from services.gateway.wire.close_codes import (
    CLOSE_BAD_DATA,
    CLOSE_BAD_REQUEST,
    CLOSE_FLOODED,
    CLOSE_TOO_BIG,
    MAX_WS_MESSAGE,
    Refusal,
    close_reason,
)
from services.gateway.wire.errors import ApiError
from services.gateway.wire.frames import ClientFrame, CommandFrame, LooseCommandFrame, Pong

_client_decoder = msgspec.json.Decoder(ClientFrame)
_loose_decoder = msgspec.json.Decoder(LooseCommandFrame)
PONG = encode_text(Pong())


async def receive_loop(
    websocket: WebSocket, gateway: Gateway, feed: GameFeed, viewer: Viewer, client: tuple[str, str | None]
) -> None:
    """Answer pings, take commands; close on an oversized or unknown frame, or when the client goes.

    Where the server allows, text frames are taken as they arrive, not from this task's queue
    (``protocol.TextReader``); those this way refuses come here, to close the socket. Every frame is charged
    to the socket's ``FrameBudget``: by the socket's protocol where it is ours (from the handshake on,
    ``ws.game_socket``), else here.
    ``client``: the socket's address and seat token's digest, charged against their rate limits as over
    HTTP."""
    messages = gateway.stats.ws_messages
    protocol = socket_protocol(websocket)
    budget = gateway.limits.frame_budget() if protocol is None else None  # else charged as frames arrive
    if protocol is not None:
        protocol.read_text_with(lambda text: _take_fast(gateway, feed, viewer, client, text))
    try:
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                if message.get("code") == CLOSE_FLOODED:  # closed by its protocol, over its frame budget
                    gateway.stats.ws_refused[CLOSE_FLOODED] += 1
                return
            messages["queued"] += 1
            if budget is not None and not budget.take():
                gateway.stats.ws_refused[CLOSE_FLOODED] += 1
                await websocket.close(CLOSE_FLOODED, close_reason(flood_reason(budget.rate)))
                return
            refusal = _take_text(
                gateway, feed, viewer, client, message.get("text") or message.get("bytes") or ""
            )
            if refusal is not None:
                await websocket.close(refusal.code, refusal.reason)
                return
    finally:
        if protocol is not None:
            protocol.stop_reading_text()
        # a closed socket waits for nothing: its unsettled commands stop holding the feed open
        for field, listener in (viewer.pending or {}).items():
            feed.unlisten(field, listener)
        viewer.pending = None


def _take_fast(
    gateway: Gateway, feed: GameFeed, viewer: Viewer, client: tuple[str, str | None], text: str
) -> bool:
    """``_take_text`` as a frame arrives; a frame it would refuse is left to the socket's task."""
    if _take_text(gateway, feed, viewer, client, text) is not None:
        return False
    gateway.stats.ws_messages["fast"] += 1
    return True


def _take_text(
    gateway: Gateway, feed: GameFeed, viewer: Viewer, client: tuple[str, str | None], data: str | bytes
) -> Refusal | None:
    """Take one client frame: a command or a ping; the refusal that ends the socket if it is neither."""
    if len(data) > MAX_WS_MESSAGE:
        return Refusal(CLOSE_TOO_BIG, f"frames may be at most {MAX_WS_MESSAGE} bytes")
    if json_checks.too_deep(data):
        return Refusal(CLOSE_BAD_DATA, f"JSON may be nested at most {json_checks.MAX_DEPTH} deep")
    try:
        frame = _client_decoder.decode(data)
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        # a command frame that the strict decoder refused only for fields it does not know is answered
        # ``rejected``, like an HTTP body with unknown fields (422)
        try:
            loose = _loose_decoder.decode(data)
        except (msgspec.DecodeError, msgspec.ValidationError):
            return Refusal(CLOSE_BAD_REQUEST, close_reason(f"unknown frame: {exc}"))
        _take_command(gateway, feed, viewer, loose, client, invalid=str(exc))
        return None
    if isinstance(frame, CommandFrame):
        _take_command(gateway, feed, viewer, frame, client)
    else:
        viewer.note(PONG)  # one writer at a time: a queued frame is not overtaken
    return None


def _take_command(
    gateway: Gateway,
    feed: GameFeed,
    viewer: Viewer,
    frame: CommandFrame | LooseCommandFrame,
    client: tuple[str, str | None],
    invalid: str | None = None,
) -> None:
    """Check and enqueue a command in the order the socket sent it; its result frame follows its events.

    ``client``: the socket's address and seat token's digest, charged against their rate limits as over
    HTTP. ``invalid``: why the frame itself is refused (unknown fields), checked where HTTP checks its body."""
    command_id = frame.command_id or ""
    try:
        if viewer.closed:  # cut off from its seat (its session signed out): nothing more it sends is taken
            raise ApiError(401, "signed_out", "this socket's session was signed out; sign in again")
        if viewer.seat is None:
            raise ApiError(
                403, "spectator", "a spectator's socket cannot send commands; connect with a seat token"
            )
        charge_command(gateway, *client)
        if invalid is not None:
            raise ApiError(422, "invalid_body", invalid)
        command, command_id = parse_command(feed, bytes(frame.command), frame.command_id)
    except ApiError as refusal:
        viewer.note(rejection_text(command_id, refusal.code, refusal.message))
        return
    field = keys.result_field("seat", viewer.seat, command_id)  # the id is the seat's own
    if viewer.pending is None:
        viewer.pending = {}
    waiting = viewer.pending.get(field)
    if isinstance(
        waiting, PendingCommand
    ):  # sent again while waiting (after a resync, say): one result frame
        waiting.supersede()
    viewer.pending[field] = submit(gateway, feed, viewer.seat, command, command_id, viewer, field=field)
