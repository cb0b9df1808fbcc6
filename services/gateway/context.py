"""What every request handler of one gateway process shares: clients, the feed hub, counters."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Mapping
from typing import Any

from starlette.requests import HTTPConnection

from domain.engine import Game
from events import connection
from events.transport import slots as cluster_slots
from events.transport.interface import Link
from events.transport.multiplexed_cluster import SlotMap, link_for
from events.transport.plain import PlainLink
from services import cluster
from services.bootstrap import Services
from services.config import Limits, Settings
from services.gateway.access import auth
from services.gateway.access.limits import ClientLimits
from services.gateway.access.origins import Origins
from services.gateway.feeds.hub import FeedHub

SEAT_CACHE_LIMIT = 100_000
"""Seat tokens a gateway remembers (forgotten all at once beyond this; wrong tokens are never kept)."""
SEAT_CACHE_S = 5.0
"""How long a remembered seat token is trusted before Redis is asked again: an organiser who gives a
person's place to someone else (``tournament replace``) revokes the old key within this time."""


class HttpStats:
    """Request counters by route template and status, and commands submitted through this gateway."""

    def __init__(self) -> None:
        self.requests: Counter[tuple[str, str, int]] = Counter()
        self.submitted = 0
        self.ws_opened = 0
        self.ws_refused: Counter[int] = Counter()
        self.client_disconnects = 0
        self.ws_stalled = 0
        self.ws_messages: dict[str, int] = {"fast": 0, "queued": 0}
        """Client messages taken as they arrived (``sockets/protocol.TextReader``) or through the socket's task."""
        self.unavailable = 0

    def count(self, method: str, route: str, status: int) -> None:
        self.requests[(method, route, status)] += 1


MAX_REDIS_CONNECTIONS = 5_000


def async_client(url: str, on_cluster: bool = False) -> Any:
    """An asyncio Redis client returning bytes, like the synchronous ones (redis-py's ``RedisCluster`` on a
    Cluster: it routes each command and pipeline by slot and follows ``MOVED``/``ASK``)."""
    options: dict[str, Any] = {"socket_timeout": 10.0, "max_connections": MAX_REDIS_CONNECTIONS}
    if on_cluster:
        return connection.async_client(
            cluster_slots.node_url(url, cluster_slots.seed_node(url)), on_cluster=True, **options
        )
    return connection.async_client(url, **options)


class Gateway:
    """One gateway process's shared state; reachable from a request as ``request.app.state.gateway``."""

    def __init__(
        self,
        services: Services,
        redis: Any,
        *,
        redis_url: str,
        allowed_origins: tuple[str, ...],
        max_websockets: int,
        wait_timeout_s: float,
        limits: Limits | None = None,
    ) -> None:
        self.services = services
        self.redis = redis
        self.redis_url = redis_url
        self.origins = Origins(allowed_origins, services.settings.public_url)
        """Who may open a game WebSocket (``origins.py``)."""
        self.max_websockets = max_websockets
        self.wait_timeout_s = wait_timeout_s
        slots = SlotMap(redis_url) if cluster.is_cluster_client(services.redis) else None
        plain = services.settings.transport == "plain"
        self.link: Link = (
            PlainLink(async_client(redis_url, on_cluster=slots is not None))
            if plain
            else link_for(redis_url, slots is not None, slots)
        )
        """The link for submitting commands (``events/transport/``; one connection per master on a Cluster)."""
        polled = PlainLink(async_client(redis_url, on_cluster=slots is not None)) if plain else None
        self.hub = FeedHub(redis, redis_url, services.store.games, slots, polled)
        self.stats = HttpStats()
        self.open_websockets = 0
        self.limits = ClientLimits(limits if limits is not None else services.settings.limits)
        self._seats: dict[tuple[str, str], tuple[int, float]] = {}

    async def seat_for(self, game_id: str, token: str | None) -> int | None:
        """The seat a token belongs to in this game (``None`` for none or a wrong one), remembered for
        ``SEAT_CACHE_S``: looking it up was one Redis round trip per HTTP move, and a seat's token changes
        only when an organiser hands a person's place to someone else."""
        if not token:
            return None
        now = time.monotonic()
        known = self._seats.get((game_id, token))
        if known is not None and known[1] > now:
            return known[0]
        seat = await auth.seat_for(self.redis, game_id, token)
        if seat is not None:
            if len(self._seats) >= SEAT_CACHE_LIMIT:
                self._seats.clear()
            self._seats[(game_id, token)] = (seat, now + SEAT_CACHE_S)
        else:
            self._seats.pop((game_id, token), None)
        return seat

    @property
    def settings(self) -> Settings:
        return self.services.settings

    @property
    def games(self) -> Mapping[str, Game[Any, Any, Any, Any]]:
        return self.services.store.games


def client_address(connection: HTTPConnection) -> str:
    """The peer's address: the forwarded one only when the peer is one of ``HARBORMASTER_TRUSTED_PROXIES``
    (``server.py``); otherwise the connection's own, whatever ``X-Forwarded-For`` says."""
    return connection.client.host if connection.client is not None else "unknown"


def gateway_of(connection: HTTPConnection) -> Gateway:
    """The gateway state of the app serving this request or WebSocket."""
    gateway: Gateway = connection.app.state.gateway
    return gateway
