"""Table chat over the gateway: ``POST /api/games/{id}/chat`` writes a message, ``GET`` lists what the caller
may read, and each message is pushed as a ``chat`` frame on the game's WebSockets to the viewers it may
reach (``domain.players.rules.chat_reaches``: in a tournament game still being played, spectators' chat
reaches nobody, anonymous readers included, until the game ends).

Authors: a seat (its token, or the session of the account that holds it) writes in the players' channel
under its seat's name; a signed-in account without a seat in the spectators' channel under its own name.
Every gateway delivers to its own sockets: the message is published on ``hm:chat:relay`` and each
gateway's relay (``ChatRelay``) pushes it to the viewers it holds.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable
from typing import Any

import msgspec
import structlog
from redis.exceptions import RedisError
from starlette.requests import Request
from starlette.responses import Response

from domain.engine import RuleViolation
from domain.players.rules import chat_reaches, checked_author, checked_chat, may_post
from events import connection, keys
from events.transport import slots as cluster_slots
from events.transport.multiplexed_cluster import ClusterMultiplexed
from services import cluster
from services.gateway.access import auth, shared_buckets
from services.gateway.access.revocation import REVOKED, SessionSockets, revoked_digests
from services.gateway.access.sessions import account_of, players_of
from services.gateway.api import names
from services.gateway.api.accounts_http import require_account, require_same_site
from services.gateway.api.players_protocol import ChatFrame, ChatLog, ChatPost, Muted
from services.gateway.api.requests import (
    ApiError,
    decode_body,
    feed_of,
    json_response,
    read_body,
    too_many,
    viewed_game,
    viewer_seat,
)
from services.gateway.api.tables_http import display_names
from services.gateway.context import Gateway, client_address, gateway_of
from services.gateway.feeds.fanout import GameFeed, encode_text
from services.players import chat, mutes

log = structlog.get_logger("chat")

RELAY = keys.CHAT_RELAY
REVOKED_CHANNEL = REVOKED.encode()
_relay_decoder = msgspec.json.Decoder(tuple[str, ChatFrame])


async def post_chat(request: Request) -> Response:
    """``POST /api/games/{id}/chat``: 201 with the message as recorded."""
    gateway = gateway_of(request)
    game_id = request.path_params["game_id"]
    feed = await feed_of(gateway, game_id)
    if auth.bearer(request.headers.get("authorization")) is None:
        require_same_site(request)  # the cookie (if any) is what authenticates this write
    seat = await viewer_seat(gateway, request, game_id, required=False)
    body = decode_body(await read_body(request), ChatPost)
    author = await _author(gateway, request, feed, seat)
    if not may_post(body.channel, is_player=seat is not None):
        raise ApiError(403, "wrong_channel", "players write in 'players', everyone else in 'spectators'")
    try:
        text = checked_chat(body.text, body.channel)
    except RuleViolation as exc:
        raise ApiError(422, exc.code, exc.message) from exc
    players = players_of(request)
    if (wait_s := players.chat.take(f"{game_id}\n{author}")) > 0:
        raise too_many("chat messages", wait_s)
    settings = players.settings  # per address: one allowance over every gateway (shared_buckets.py)
    address, now = client_address(request), int(time.time() * 1000)
    wait_s = await shared_buckets.take(
        gateway.redis, "chat", address, settings.chat_per_address, settings.chat_burst_seconds, now
    )
    if wait_s > 0:
        raise too_many("chat messages from this address", wait_s)
    frame = await chat.append(gateway.redis, game_id, body.channel, author, seat, text)
    await gateway.redis.publish(RELAY, msgspec.json.encode((game_id, frame)))
    return json_response(frame, 201)


async def _author(gateway: Gateway, request: Request, feed: GameFeed, seat: int | None) -> str:
    """The name a message goes under: the seat's, else the signed-in account's (401 for neither)."""
    if seat is not None:
        seat_names = await names.load(gateway.redis, feed.game_id, feed.meta.header.seats, feed.meta.bots)
        return seat_names[seat]
    account = await account_of(request)
    if account is None:
        raise ApiError(401, "not_signed_in", "sign in to chat as a spectator")
    return (await display_names(gateway.redis, [account]))[0]


async def list_chat(request: Request) -> Response:
    """``GET /api/games/{id}/chat``: the last messages the caller may read, oldest first."""
    gateway, feed, _ = await viewed_game(request)  # a wrong token is still refused (403)
    messages = [m for m in await chat.recent(gateway.redis, feed.game_id) if _reaches(feed, m.channel)]
    return json_response(ChatLog(messages=messages))


def _reaches(feed: GameFeed, channel: str) -> bool:
    """The same for every reader: a seat reads what an anonymous reader reads (finding 17)."""
    return chat_reaches(channel, tournament=feed.meta.tournament, finished=feed.finished)


async def list_muted(request: Request) -> Response:
    """``GET /api/me/muted``: the chat authors the signed-in account has muted."""
    account = await require_account(request)
    return json_response(Muted(muted=await mutes.muted(gateway_of(request).redis, account)))


async def mute_author(request: Request) -> Response:
    """``PUT /api/me/muted/{author}``: hide an author's chat from this account on every device (204)."""
    return await _change_mutes(request, mutes.mute)


async def unmute_author(request: Request) -> Response:
    """``DELETE /api/me/muted/{author}``: show an author's chat again (204, muted or not)."""
    return await _change_mutes(request, mutes.unmute)


async def _change_mutes(request: Request, change: Callable[[Any, str, str], Awaitable[None]]) -> Response:
    """``change`` (mute or unmute) the path's author for the signed-in account; 409 past the mutes' limit."""
    require_same_site(request)
    account = await require_account(request)
    try:
        author = checked_author(request.path_params["author"])
    except RuleViolation as exc:
        raise ApiError(422, exc.code, exc.message) from exc
    try:
        await change(gateway_of(request).redis, account, author)
    except mutes.MuteError as exc:
        raise ApiError(409, exc.code, exc.message) from exc
    return Response(status_code=204)


def deliver(gateway: Gateway, game_id: str, frame: ChatFrame) -> int:
    """Push a message to this gateway's sockets on the game that it may reach; returns how many."""
    feed = gateway.hub.feeds.get(game_id)
    if feed is None:
        return 0
    if not _reaches(feed, frame.channel):
        return 0
    text = encode_text(frame)
    sent = 0
    for viewer in list(feed.viewers):
        if not viewer.closed:
            viewer.note(text)
            sent += 1
    return sent


class ChatRelay:
    """Reads ``hm:chat:relay`` and delivers each message to this gateway's sockets, for as long as the
    gateway runs (reconnecting after a Redis outage; a message published meanwhile is in the chat's stream,
    for ``GET …/chat``, but not pushed). On the same connection, the sessions revoked on any gateway
    (``revocation.REVOKED``): their sockets here are cut off."""

    def __init__(self, gateway: Gateway, sockets: SessionSockets) -> None:
        self.gateway = gateway
        self.sockets = sockets
        self.task: asyncio.Task[None] | None = None
        self._attempts = 0

    def start(self) -> None:
        self.task = asyncio.create_task(self._run())

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self.task

    async def _run(self) -> None:
        while True:
            try:
                await self._listen()
            except (RedisError, OSError) as exc:
                log.warning("chat_relay_lost", error=str(exc) or type(exc).__name__)
                await asyncio.sleep(1.0)

    async def _listen(self) -> None:
        client = self._subscriber()
        pubsub: Any = client.pubsub()
        try:
            await pubsub.subscribe(RELAY, REVOKED)
            async for message in pubsub.listen():
                if message.get("type") != "message":
                    continue
                if message.get("channel") == REVOKED_CHANNEL:
                    self.sockets.cut(revoked_digests(message["data"]))
                else:
                    self._take(message["data"])
        finally:
            with contextlib.suppress(Exception):
                await pubsub.aclose()
            if client is not self.gateway.redis:
                with contextlib.suppress(Exception):
                    await client.aclose()

    def _subscriber(self) -> Any:
        """The gateway's client on one Redis. On a Cluster a plain client of one node, the next one known
        after each failure: a ``PUBLISH`` reaches the subscribers of every node of a Cluster, while
        redis-py's Cluster client's own pub/sub pushed nothing (``tests/cluster/test_chat_on_cluster.py``)."""
        gateway = self.gateway
        if not cluster.is_cluster_client(gateway.services.redis):
            return gateway.redis
        link = gateway.link
        known = link.slots.known if isinstance(link, ClusterMultiplexed) else []
        nodes = known or [cluster_slots.seed_node(gateway.redis_url)]
        node = nodes[self._attempts % len(nodes)]
        self._attempts += 1
        return connection.async_client(cluster_slots.node_url(gateway.redis_url, node))

    def _take(self, data: bytes) -> None:
        try:
            game_id, frame = _relay_decoder.decode(data)
        except (msgspec.DecodeError, msgspec.ValidationError):
            log.warning("chat_relay_unreadable")
            return
        deliver(self.gateway, game_id, frame)
