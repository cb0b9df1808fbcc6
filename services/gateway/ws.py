"""The WebSocket ``/ws/games/{id}?token=…&from=SEQ``: a viewer's live projection of one game.

The first frame is ``hello`` (the view at ``from``, or the latest), then one ``event`` frame per appended
event, in order and exactly once. A viewer too far behind gets a ``resync`` frame (a fresh view) instead
of the events it missed. Refusals are made after the handshake, with a close code from ``protocol.py``
and a reason, so that browsers can tell them apart.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from urllib.parse import urlsplit

import msgspec
import structlog
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError
from starlette.websockets import WebSocket, WebSocketDisconnect
from uvicorn.protocols.utils import ClientDisconnected

from events import keys
from events.envelope import CommandRecord
from events.errors import UnknownGame
from services.gateway import strict
from services.gateway.commands import enqueue, parse_command
from services.gateway.context import Gateway, client_address, gateway_of
from services.gateway.fanout import GameFeed, Viewer, encode_text
from services.gateway.protocol import (
    CLOSE_BAD_DATA,
    CLOSE_BAD_ORIGIN,
    CLOSE_BAD_REQUEST,
    CLOSE_BAD_TOKEN,
    CLOSE_TOO_BIG,
    CLOSE_TOO_MANY,
    CLOSE_UNAVAILABLE,
    CLOSE_UNKNOWN_GAME,
    MAX_WS_MESSAGE,
    ClientFrame,
    CommandFrame,
    Pong,
    ResultFrame,
    close_reason,
)
from services.gateway.requests import ApiError, charge_command
from services.gateway.socket_writer import direct_writer

log = structlog.get_logger("ws")

_client_decoder = msgspec.json.Decoder(ClientFrame)
PONG = encode_text(Pong())
SEQ = re.compile(r"^[0-9]{1,18}\Z")


class Refusal(Exception):
    def __init__(self, code: int, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason


def origin_allowed(websocket: WebSocket, allowed: tuple[str, ...]) -> bool:
    """No ``Origin`` (not a browser), the gateway's own host, or one of the configured origins."""
    origin = websocket.headers.get("origin")
    if origin is None or "*" in allowed or origin in allowed:
        return True
    return urlsplit(origin).netloc == websocket.headers.get("host")


async def game_socket(websocket: WebSocket) -> None:
    """The endpoint: check, subscribe, then send frames while reading the client's pings."""
    gateway = gateway_of(websocket)
    address = client_address(websocket)
    await websocket.accept()
    if not gateway.limits.sockets.acquire(address):
        await _refuse(
            gateway, websocket, Refusal(CLOSE_TOO_MANY, "this address holds all the sockets it may")
        )
        return
    try:
        await _admitted(gateway, websocket)
    finally:
        gateway.limits.sockets.release(address)


async def _admitted(gateway: Gateway, websocket: WebSocket) -> None:
    try:
        feed, seat, after = await _admit(gateway, websocket)
        viewer, hello, missed = feed.subscribe(seat, after)
    except Refusal as refusal:
        await _refuse(gateway, websocket, refusal)
        return
    except ValueError as exc:
        await _refuse(gateway, websocket, Refusal(CLOSE_BAD_REQUEST, str(exc)))
        return
    except (RedisConnectionError, RedisTimeoutError):
        log.warning("redis_unavailable", path=websocket.url.path)
        await _refuse(gateway, websocket, Refusal(CLOSE_UNAVAILABLE, "the game store is unreachable; retry"))
        return
    gateway.open_websockets += 1
    gateway.stats.ws_opened += 1
    try:
        if await _serve(websocket, gateway, feed, viewer, hello, missed):
            gateway.stats.ws_stalled += 1
            log.info("websocket_stalled", game_id=feed.game_id, seat=viewer.seat)
    finally:
        feed.unsubscribe(viewer)
        gateway.open_websockets -= 1


async def _refuse(gateway: Gateway, websocket: WebSocket, refusal: Refusal) -> None:
    gateway.stats.ws_refused[refusal.code] = gateway.stats.ws_refused.get(refusal.code, 0) + 1
    with contextlib.suppress(WebSocketDisconnect, RuntimeError, ClientDisconnected):
        await websocket.close(refusal.code, close_reason(refusal.reason))


async def _admit(gateway: Gateway, websocket: WebSocket) -> tuple[GameFeed, int | None, int | None]:
    if not origin_allowed(websocket, gateway.allowed_origins):
        raise Refusal(CLOSE_BAD_ORIGIN, "origin not allowed")
    if gateway.open_websockets >= gateway.max_websockets:
        raise Refusal(CLOSE_TOO_MANY, "this gateway holds all the WebSockets it may")
    game_id = websocket.path_params["game_id"]
    raw_from = websocket.query_params.get("from")
    if raw_from is not None and not SEQ.match(raw_from):  # isdigit() takes "²", which int() refuses
        raise Refusal(CLOSE_BAD_REQUEST, "from must be a sequence number")
    try:
        feed = await gateway.hub.feed(game_id)
    except UnknownGame as exc:
        raise Refusal(CLOSE_UNKNOWN_GAME, f"no game {game_id!r}") from exc
    token = websocket.query_params.get("token")
    seat = await gateway.seat_for(game_id, token) if token else None
    if token and seat is None:
        raise Refusal(CLOSE_BAD_TOKEN, "this token is not a seat token of this game")
    return feed, seat, int(raw_from) if raw_from is not None else None


async def _serve(
    websocket: WebSocket,
    gateway: Gateway,
    feed: GameFeed,
    viewer: Viewer,
    hello: str,
    missed: list[tuple[int, str]],
) -> bool:
    """Until the client goes, or stalls (returns True): a send that waits ``Limits.stall_seconds`` for the
    client to read ends the socket, so that a client that never reads holds no task or queue here."""
    stall_s = gateway.limits.limits.stall_seconds
    sender = asyncio.create_task(_send_loop(websocket, feed, viewer, hello, missed, stall_s))
    receiver = asyncio.create_task(_receive_loop(websocket, gateway, feed, viewer))
    try:
        await asyncio.wait((sender, receiver), return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in (sender, receiver):
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
    return sender.done() and not sender.cancelled() and isinstance(sender.exception(), TimeoutError)


async def _send(websocket: WebSocket, text: str, stall_s: float) -> None:
    await asyncio.wait_for(websocket.send_text(text), stall_s)


async def _send_loop(
    websocket: WebSocket,
    feed: GameFeed,
    viewer: Viewer,
    hello: str,
    missed: list[tuple[int, str]],
    stall_s: float,
) -> None:
    await _send(websocket, hello, stall_s)
    for seq, text in missed:
        await _send(websocket, text, stall_s)
        viewer.last_seq = seq
    viewer.writer = direct_writer(websocket)
    stats = feed.stats
    while not viewer.closed:
        viewer.sending = False
        await viewer.wake.wait()
        viewer.wake.clear()
        viewer.sending = True
        while viewer.writer is not None and viewer.writer.holding:
            await asyncio.sleep(0)  # frames taken for a direct write this turn go first
        if viewer.resync:
            viewer.resync = False
            seq, text = feed.resync_frame(viewer.seat)
            viewer.last_seq = seq
            await _send(websocket, text, stall_s)
        while viewer.items:
            seq, text = viewer.items.popleft()
            if seq <= viewer.last_seq:
                continue
            await _send(websocket, text, stall_s)
            viewer.last_seq = seq
            stats.frames += 1
        while viewer.notes:
            await _send(websocket, viewer.notes.popleft(), stall_s)


async def _receive_loop(websocket: WebSocket, gateway: Gateway, feed: GameFeed, viewer: Viewer) -> None:
    """Answer pings, take commands; close on an oversized or unknown frame, or when the client goes."""
    try:
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                return
            data = message.get("text") or message.get("bytes") or ""
            if len(data) > MAX_WS_MESSAGE:
                await websocket.close(CLOSE_TOO_BIG, f"frames may be at most {MAX_WS_MESSAGE} bytes")
                return
            if strict.too_deep(data):
                await websocket.close(CLOSE_BAD_DATA, f"JSON may be nested at most {strict.MAX_DEPTH} deep")
                return
            try:
                frame = _client_decoder.decode(data)
            except (msgspec.DecodeError, msgspec.ValidationError) as exc:
                await websocket.close(CLOSE_BAD_REQUEST, close_reason(f"unknown frame: {exc}"))
                return
            if isinstance(frame, CommandFrame):
                token = websocket.query_params.get("token")
                await _take_command(gateway, feed, viewer, frame, (client_address(websocket), token))
            else:
                viewer.note(PONG)  # the sender answers: one task writes to the socket
    except (WebSocketDisconnect, RuntimeError, ClientDisconnected):
        return
    finally:
        _forget_pending(feed, viewer)


async def _take_command(
    gateway: Gateway, feed: GameFeed, viewer: Viewer, frame: CommandFrame, client: tuple[str, str | None]
) -> None:
    """Check and enqueue a command in the order the socket sent it; its result frame follows its events.

    ``client``: the socket's address and seat token, charged against their rate limits as over HTTP."""
    command_id = frame.command_id or ""
    try:
        if viewer.seat is None:
            raise ApiError(
                403, "spectator", "a spectator's socket cannot send commands; connect with a seat token"
            )
        charge_command(gateway, *client)
        command, command_id = parse_command(feed, bytes(frame.command), frame.command_id)
        field = keys.result_field("seat", viewer.seat, command_id)  # the id is the seat's own
        future = feed.expect(field)
        try:
            earlier = await enqueue(gateway, feed, viewer.seat, command, command_id)
        except (RedisConnectionError, RedisTimeoutError) as exc:
            feed.waiters.pop(field, None)
            raise ApiError(503, "unavailable", "the game store is unreachable; retry shortly") from exc
    except ApiError as refusal:
        viewer.note(
            encode_text(
                ResultFrame(
                    command_id=command_id, status="rejected", code=refusal.code, message=refusal.message
                )
            )
        )
        return
    if earlier is not None:
        feed.waiters.pop(field, None)
        viewer.note(result_text(earlier))
        return
    viewer.pending.add(field)
    future.add_done_callback(lambda done: _settled(viewer, field, done))


def _settled(viewer: Viewer, field: str, future: asyncio.Future[CommandRecord]) -> None:
    viewer.pending.discard(field)
    if not future.cancelled() and not viewer.closed:
        viewer.note(result_text(future.result()))


def _forget_pending(feed: GameFeed, viewer: Viewer) -> None:
    """A closed socket waits for nothing: its unsettled commands stop holding the feed open."""
    for field in viewer.pending:
        future = feed.waiters.pop(field, None)
        if future is not None:
            future.cancel()
    viewer.pending.clear()


def result_text(record: CommandRecord) -> str:
    """A recorded result as a ``result`` frame."""
    if record.status == "applied":
        frame = ResultFrame(
            command_id=record.command_id, status="applied", seq=record.last_seq, first_seq=record.first_seq
        )
    else:
        frame = ResultFrame(
            command_id=record.command_id, status="rejected", code=record.code, message=record.message
        )
    return encode_text(frame)
