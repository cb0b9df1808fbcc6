"""What every request handler of one gateway process shares: clients, the feed hub, counters."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from starlette.requests import HTTPConnection

from domain.engine import Game
from services.bootstrap import Services
from services.config import Limits, Settings
from services.gateway.hub import FeedHub
from services.gateway.limits import ClientLimits


class HttpStats:
    """Request counters by route template and status, and commands submitted through this gateway."""

    def __init__(self) -> None:
        self.requests: dict[tuple[str, str, int], int] = {}
        self.submitted = 0
        self.ws_opened = 0
        self.ws_refused: dict[int, int] = {}
        self.client_disconnects = 0
        self.ws_stalled = 0
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
        reader_redis: Any,
        *,
        redis_url: str | None,
        allowed_origins: tuple[str, ...],
        max_websockets: int,
        wait_timeout_s: float,
        limits: Limits | None = None,
    ) -> None:
        self.services = services
        self.redis = redis
        self.reader_redis = reader_redis
        self.redis_url = redis_url
        self.allowed_origins = allowed_origins
        self.max_websockets = max_websockets
        self.wait_timeout_s = wait_timeout_s
        self.hub = FeedHub(redis, reader_redis, services.store.games)
        self.stats = HttpStats()
        self.open_websockets = 0
        self.limits = ClientLimits(limits if limits is not None else services.settings.limits)

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
