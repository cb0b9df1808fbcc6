"""What every request handler of one gateway process shares: clients, the feed hub, counters."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from starlette.requests import HTTPConnection

from domain.engine import Game
from services import cluster
from services.bootstrap import Services
from services.config import Limits, Settings
from services.gateway import auth
from services.gateway.cluster_wire import SlotMap, wire_for
from services.gateway.hub import FeedHub
from services.gateway.limits import ClientLimits

SEAT_CACHE_LIMIT = 100_000
"""Seat tokens a gateway remembers (forgotten all at once beyond this; wrong tokens are never kept)."""


class HttpStats:
    """Request counters by route template and status, and commands submitted through this gateway."""

    def __init__(self) -> None:
        self.requests: dict[tuple[str, str, int], int] = {}
        self.submitted = 0
        self.ws_opened = 0
        self.ws_refused: dict[int, int] = {}
        self.client_disconnects = 0
        self.ws_stalled = 0
        self.ws_messages: dict[str, int] = {"fast": 0, "queued": 0}
        """Client messages taken as they arrived (``socket_reader.py``) or through the socket's task."""
        self.unavailable = 0

    def count(self, method: str, route: str, status: int) -> None:
        key = (method, route, status)
        self.requests[key] = self.requests.get(key, 0) + 1


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
        self.allowed_origins = allowed_origins
        self.max_websockets = max_websockets
        self.wait_timeout_s = wait_timeout_s
        slots = SlotMap(redis_url) if cluster.is_cluster_client(services.redis) else None
        self.wire = wire_for(redis_url, slots is not None, slots)
        """The connection for submitting commands (see ``wire.py``; one per master on a Cluster)."""
        self.hub = FeedHub(redis, redis_url, services.store.games, slots)
        self.stats = HttpStats()
        self.open_websockets = 0
        self.limits = ClientLimits(limits if limits is not None else services.settings.limits)
        self._seats: dict[tuple[str, str], int] = {}

    async def seat_for(self, game_id: str, token: str | None) -> int | None:
        """The seat a token belongs to in this game (``None`` for none or a wrong one), remembered: a seat's
        token never changes, and looking it up was one Redis round trip per HTTP move."""
        if not token:
            return None
        known = self._seats.get((game_id, token))
        if known is not None:
            return known
        seat = await auth.seat_for(self.redis, game_id, token)
        if seat is not None:
            if len(self._seats) >= SEAT_CACHE_LIMIT:
                self._seats.clear()
            self._seats[(game_id, token)] = seat
        return seat

    @property
    def settings(self) -> Settings:
        return self.services.settings

    @property
    def games(self) -> Mapping[str, Game[Any, Any, Any, Any]]:
        return self.services.store.games


def client_address(connection: HTTPConnection) -> str:
    """The peer's address (uvicorn's ``--proxy-headers`` makes it the forwarded one behind a proxy)."""
    return connection.client.host if connection.client is not None else "unknown"


def gateway_of(connection: HTTPConnection) -> Gateway:
    """The gateway state of the app serving this request or WebSocket."""
    gateway: Gateway = connection.app.state.gateway
    return gateway
