"""The WebSocket ``/ws/games/{id}?token=…&from=SEQ``: a viewer's live projection of one game.

The first frame is ``hello`` (the view at ``from``, or the latest), then one ``event`` frame per appended
event, in order and exactly once. A viewer too far behind gets a ``resync`` frame (a fresh view) instead
of the events it missed. Refusals are made after the handshake, with a close code from ``protocol.py``
and a reason, so that browsers can tell them apart. What the client sends (pings, a seat's commands) is
taken by ``ws_commands.py``.
"""

from __future__ import annotations

import asyncio
import contextlib
import re

import structlog
from redis.exceptions import RedisError
from starlette.datastructures import QueryParams
from starlette.websockets import WebSocket, WebSocketDisconnect
from uvicorn.protocols.utils import ClientDisconnected

from events.errors import UnknownGame
from services.gateway.access import auth
from services.gateway.access.limits import retry_after
from services.gateway.access.origins import Origins
from services.gateway.access.revocation import Cut, SessionSockets, registry
from services.gateway.access.sessions import session_seat, session_secret
from services.gateway.context import SEAT_CACHE_S, Gateway, client_address, gateway_of
from services.gateway.feeds.fanout import GameFeed
from services.gateway.feeds.viewer import Viewer
from services.gateway.sockets.protocol import UNREAD, direct_writer, socket_protocol
from services.gateway.sockets.ws_commands import receive_loop
from services.gateway.wire.close_codes import (
    CLOSE_BAD_ORIGIN,
    CLOSE_BAD_REQUEST,
    CLOSE_BAD_TOKEN,
    CLOSE_TOO_MANY,
    CLOSE_UNAVAILABLE,
    CLOSE_UNKNOWN_GAME,
    Refusal,
    close_reason,
)
from services.gateway.wire.errors import error_response
from services.players import accounts

log = structlog.get_logger("ws")

SEQ = re.compile(r"^[0-9]{1,18}\Z")


def origin_allowed(websocket: WebSocket, origins: Origins) -> bool:
    """No ``Origin`` (not a browser), a configured origin, or the address the socket reached us on
    (``origins.py``): never the request's own ``Host``, which a DNS-rebinding page chooses."""
    # read from the scope: ``websocket.headers`` would keep a parsed copy per socket
    origin = next((str(v.decode("latin-1")) for k, v in websocket.scope["headers"] if k == b"origin"), None)
    return origins.allows(origin, websocket.scope.get("server"))


async def game_socket(websocket: WebSocket) -> None:
    """The endpoint: check, subscribe, then send frames while reading the client's pings."""
    gateway = gateway_of(websocket)
    address = client_address(websocket)
    wait_s = gateway.limits.socket_open(address)
    if wait_s > 0:
        await _refuse_opening(gateway, websocket, wait_s)
        return
    protocol = socket_protocol(websocket)
    if protocol is not None:  # every frame from the first is charged, those sent before we read them too
        protocol.budget = gateway.limits.frame_budget()
    await websocket.accept()
    if not gateway.limits.sockets.acquire(address):
        await _refuse(gateway, websocket, CLOSE_TOO_MANY, "this address holds all the sockets it may")
        return
    try:
        await _admitted(gateway, websocket, address)
    finally:
        gateway.limits.sockets.release(address)


async def _admitted(gateway: Gateway, websocket: WebSocket, address: str) -> None:
    try:
        feed, seat, after, token, session = await _admit(gateway, websocket)
        viewer, hello, missed = feed.subscribe(seat, after)
    except Refusal as refusal:
        await _refuse(gateway, websocket, refusal.code, refusal.reason)
        return
    except ValueError as exc:
        await _refuse(gateway, websocket, CLOSE_BAD_REQUEST, str(exc))
        return
    except RedisError as exc:  # unreachable, or refusing (out of memory, disk full, a read-only replica)
        log.warning("redis_unavailable", path=websocket.url.path, error=str(exc) or type(exc).__name__)
        await _refuse(gateway, websocket, CLOSE_UNAVAILABLE, "the game store is unavailable; retry")
        return
    websocket.scope["headers"] = []  # read for the last time: ~1 kB a socket for as long as it is open
    gateway.open_websockets += 1
    gateway.stats.ws_opened += 1
    watch = None
    if token and viewer.seat is not None:
        watch = asyncio.create_task(_watch_seat(gateway, websocket, feed.game_id, viewer.seat, token))
    revocable = None  # a socket seated by a session is cut off when it is signed out (``revocation.py``)
    if session is not None:
        revocable = registry(websocket.app.state), _cutter(gateway, websocket, feed, viewer)
        revocable[0].add(session, revocable[1])
        watch = asyncio.create_task(_watch_session(gateway, *revocable, session))
    try:
        if await _serve(
            websocket, gateway, feed, viewer, hello, missed, (address, _rate_key(feed, viewer.seat, token))
        ):
            gateway.stats.ws_stalled += 1
            log.info("websocket_stalled", game_id=feed.game_id, seat=viewer.seat)
    finally:
        if watch is not None:
            watch.cancel()
        if session is not None and revocable is not None:
            revocable[0].discard(session, revocable[1])
        feed.unsubscribe(viewer)
        gateway.open_websockets -= 1


def _cutter(gateway: Gateway, websocket: WebSocket, feed: GameFeed, viewer: Viewer) -> Cut:
    """What cuts this socket off from its seat when its session is revoked: out of the feed at once (no
    more frames; ``viewer.closed`` refuses whatever command it sends after), then closed with 4401."""

    def cut() -> None:
        if viewer.closed:
            return
        feed.unsubscribe(viewer)
        refusal = _refuse(gateway, websocket, CLOSE_BAD_TOKEN, "signed out: sign in again to play")
        registry(websocket.app.state).closed_later(refusal)

    return cut


async def _watch_session(gateway: Gateway, sockets: SessionSockets, cut: Cut, digest: str) -> None:
    """Cut the socket off once its session is gone from Redis (signed out while this gateway missed the
    news, or expired), asked every ``SEAT_CACHE_S``."""
    while True:
        await asyncio.sleep(SEAT_CACHE_S)
        try:
            alive = await gateway.redis.exists(accounts.session_key(digest))
        except RedisError:  # unreachable for now: the socket keeps its seat until an answer says otherwise
            continue
        if not alive:
            log.info("session_gone", sockets=1)
            sockets.discard(digest, cut)
            cut()
            return


async def _watch_seat(gateway: Gateway, websocket: WebSocket, game_id: str, seat: int, token: str) -> None:
    """Close a seat's socket once its token no longer opens that seat (an organiser gave the place to
    someone else: ``tournament replace``), checked as often as the gateway trusts a remembered token, so
    that a socket opened before is revoked as soon as an HTTP request with the same token would be."""
    while True:
        await asyncio.sleep(SEAT_CACHE_S)
        try:
            still = await gateway.seat_for(game_id, token)
        except RedisError:  # unreachable for now: the socket keeps its seat until an answer says otherwise
            continue
        if still != seat:
            log.info("seat_token_revoked", game_id=game_id, seat=seat)
            await _refuse(gateway, websocket, CLOSE_BAD_TOKEN, "this seat was given to someone else")
            return


def _rate_key(feed: GameFeed, seat: int | None, token: str | None) -> str | None:
    """What a socket's commands are counted under: its token's digest, else its seat (a signed-in account's,
    the same key as over HTTP: ``http._writer_seat``); a spectator sends none."""
    if token:
        return auth.digest(token)
    return f"session:{feed.game_id}:{seat}" if seat is not None else None


async def _refuse_opening(gateway: Gateway, websocket: WebSocket, wait_s: float) -> None:
    """An address opening sockets faster than ``HARBORMASTER_WS_OPENS_PER_ADDRESS`` (issue 43, finding 15):
    answered 429 with ``Retry-After`` before the handshake, so a flood of opens costs the gateway a bucket's
    arithmetic and a short answer each; a server that cannot answer a handshake so closes with 4429."""
    message = "this address opened WebSockets faster than it may"
    if "websocket.http.response" not in websocket.scope.get("extensions", {}):
        await websocket.accept()
        await _refuse(gateway, websocket, CLOSE_TOO_MANY, message)
        return
    gateway.stats.ws_refused[CLOSE_TOO_MANY] += 1
    denial = error_response(429, "rate_limited", message, {"Retry-After": retry_after(wait_s)})
    with contextlib.suppress(WebSocketDisconnect, RuntimeError, ClientDisconnected, OSError):
        await websocket.send_denial_response(denial)


async def _refuse(gateway: Gateway, websocket: WebSocket, code: int, reason: str) -> None:
    gateway.stats.ws_refused[code] += 1
    with contextlib.suppress(WebSocketDisconnect, RuntimeError, ClientDisconnected):
        await websocket.close(code, close_reason(reason))


async def _admit(
    gateway: Gateway, websocket: WebSocket
) -> tuple[GameFeed, int | None, int | None, str | None, str | None]:
    """The socket's feed, seat, first sequence number, seat token and, when a session cookie seated it, the
    session's digest."""
    if not origin_allowed(websocket, gateway.origins):
        raise Refusal(CLOSE_BAD_ORIGIN, "origin not allowed")
    if gateway.open_websockets >= gateway.max_websockets:
        raise Refusal(CLOSE_TOO_MANY, "this gateway holds all the WebSockets it may")
    game_id = websocket.path_params["game_id"]
    query = QueryParams(websocket.scope["query_string"])  # not cached on the socket, unlike query_params
    raw_from = query.get("from")
    if raw_from is not None and not SEQ.match(raw_from):  # isdigit() takes "²", which int() refuses
        raise Refusal(CLOSE_BAD_REQUEST, "from must be a sequence number")
    try:
        feed = await gateway.hub.feed(game_id)
    except UnknownGame as exc:
        raise Refusal(CLOSE_UNKNOWN_GAME, f"no game {game_id!r}") from exc
    token = query.get("token")
    seat = await gateway.seat_for(game_id, token) if token else None
    if token and seat is None:
        raise Refusal(CLOSE_BAD_TOKEN, "this token is not a seat token of this game")
    session = None
    if not token:  # a signed-in account's seat, from its session cookie (any device)
        seat = await session_seat(gateway, websocket, game_id)
        secret = session_secret(websocket)
        session = accounts.session_digest(secret) if seat is not None and secret else None
    return feed, seat, int(raw_from) if raw_from is not None else None, token, session


async def _serve(
    websocket: WebSocket,
    gateway: Gateway,
    feed: GameFeed,
    viewer: Viewer,
    hello: str,
    missed: list[tuple[int, str]],
    client: tuple[str, str | None],
) -> bool:
    """The socket's one task, until the client goes or stalls (returns True): it sends the opening frames,
    then reads the client's frames; frames that cannot be written directly are drained by a ``Sender``
    started only while some wait. A send that waits ``Limits.stall_seconds`` for the client to read ends
    the socket, so that a client that never reads holds no task or queue here."""
    stall_s = gateway.limits.limits.stall_seconds
    sender = Sender(websocket, feed, viewer, stall_s)
    try:
        await _send(websocket, hello, stall_s)
        for seq, text in missed:
            await _send(websocket, text, stall_s)
            viewer.last_seq = seq
        viewer.writer = direct_writer(websocket)
        viewer.wake = sender.start
        viewer.overflow = sender.drop
        if viewer.resync or viewer.items or viewer.notes:
            sender.start()
        else:
            viewer.sending = False
        await receive_loop(websocket, gateway, feed, viewer, client)
    except TimeoutError:  # an opening frame the client did not read (later sends are the sender's)
        return True
    except (WebSocketDisconnect, RuntimeError, ClientDisconnected):
        pass
    except asyncio.CancelledError:
        current = asyncio.current_task()
        if not sender.ended or current is None:
            raise
        current.uncancel()  # the sender ended the socket: not a cancellation from outside
    finally:
        await sender.stop()
    return sender.stalled


async def _send(websocket: WebSocket, text: str, stall_s: float) -> None:
    await asyncio.wait_for(websocket.send_text(text), stall_s)


class Sender:
    """Drains a viewer's queued frames in order, as a task that runs only while some are waiting.

    If a send fails or stalls it ends the socket by cancelling the socket's own task (the one reading)."""

    __slots__ = ("ended", "feed", "owner", "stall_s", "stalled", "task", "viewer", "websocket")

    def __init__(self, websocket: WebSocket, feed: GameFeed, viewer: Viewer, stall_s: float) -> None:
        self.websocket = websocket
        self.feed = feed
        self.viewer = viewer
        self.stall_s = stall_s
        self.owner = asyncio.current_task()
        self.task: asyncio.Task[None] | None = None
        self.ended = False
        self.stalled = False

    def start(self) -> None:
        if self.task is None and not self.viewer.closed and not self.ended:
            self.viewer.sending = True
            self.task = asyncio.create_task(self._run())

    def drop(self) -> None:
        """The client leaves its answers unread: close it (1008) and end the socket's task."""
        protocol = socket_protocol(self.websocket)
        if protocol is not None:
            protocol.flooded(UNREAD)
        self._end(stalled=True)

    def _end(self, stalled: bool) -> None:
        """End the socket: cancel its own task (the one reading), which then stops this sender."""
        self.stalled, self.ended = stalled, True
        if self.owner is not None:
            self.owner.cancel()

    async def stop(self) -> None:
        task, self.task = self.task, None
        if task is not None and task is not asyncio.current_task():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    async def _run(self) -> None:
        try:
            await self._drain()
        except Exception as exc:  # the client went, or stopped reading: the socket ends
            self._end(stalled=isinstance(exc, TimeoutError))
        finally:
            self.task = None
            self.viewer.sending = False

    async def _drain(self) -> None:
        viewer, websocket, stall_s = self.viewer, self.websocket, self.stall_s
        while True:
            while viewer.writer is not None and viewer.writer.holding:
                await asyncio.sleep(0)  # frames taken for a direct write this turn go first
            if viewer.resync:
                viewer.resync = False
                seq, text = self.feed.resync_frame(viewer.seat)
                viewer.last_seq = seq
                await _send(websocket, text, stall_s)
            elif viewer.items:
                seq, text = viewer.items.popleft()
                if seq > viewer.last_seq:
                    await _send(websocket, text, stall_s)
                    viewer.last_seq = seq
                    self.feed.stats.frames += 1
            elif viewer.notes:
                await _send(websocket, viewer.notes.popleft(), stall_s)
            else:
                viewer.items = viewer.notes = None  # drained: the viewer holds no queue until it needs one
                return
