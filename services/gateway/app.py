"""The Starlette application: routes, the shared gateway state and its lifespan.

``create_app(services)`` is what ``harbormaster serve`` and ``harbormaster gateway`` run with uvicorn.
Stateless apart from caches (the game feeds), so any number of gateways may serve the same Redis.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import structlog
from redis.exceptions import RedisError
from starlette.applications import Starlette
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Match, Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from starlette.websockets import WebSocket

from services import cluster
from services.bootstrap import Services
from services.config import Limits
from services.gateway.access.read_limits import LimitReads
from services.gateway.access.revocation import registry
from services.gateway.api import openapi, requests
from services.gateway.api.chat_http import ChatRelay
from services.gateway.context import Gateway, async_client, gateway_of
from services.gateway.security_headers import SecurityHeaders
from services.gateway.sockets import ws

log = structlog.get_logger("gateway")

STATIC = Path(__file__).parent / "static"
DEFAULT_MAX_WEBSOCKETS = 50_000
"""Per client; the feeds' reader holds one blocking connection per watched game."""


def redis_url_of(client: Any) -> str | None:
    """The URL of a redis-py client's server (for rq bot jobs, which build their own clients)."""
    kwargs = client.connection_pool.connection_kwargs
    if "path" in kwargs:
        return f"unix://{kwargs['path']}?db={kwargs.get('db', 0)}"
    if "host" not in kwargs:
        return None
    auth = f":{kwargs['password']}@" if kwargs.get("password") else ""
    return f"redis://{auth}{kwargs['host']}:{kwargs.get('port', 6379)}/{kwargs.get('db', 0)}"


def routes() -> list[BaseRoute]:
    """Every route of the gateway: its endpoints (``openapi.ENDPOINTS``, each described where it is
    declared) and the web client's static files."""
    return [*openapi.routes(), Mount("/static", StaticFiles(directory=STATIC), name="static")]


class CountRequests:
    """ASGI middleware: count HTTP requests by endpoint and status for ``/metrics``."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        status = 500

        async def send_wrapper(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, send_wrapper)
        finally:
            endpoint = scope.get("endpoint")
            name = getattr(endpoint, "__name__", "static" if endpoint else "unrouted")
            gateway: Gateway | None = getattr(scope["app"].state, "gateway", None) if "app" in scope else None
            if gateway is not None:
                gateway.stats.count(scope["method"], name, status)


def create_app(
    services: Services,
    *,
    redis_url: str | None = None,
    allowed_origins: tuple[str, ...] | None = None,
    max_websockets: int = DEFAULT_MAX_WEBSOCKETS,
    wait_timeout_s: float = 10.0,
    limits: Limits | None = None,
) -> Starlette:
    """The gateway application on ``services``' Redis.

    ``allowed_origins``: WebSocket origins besides the gateway's own host (default: the services' settings,
    ``HARBORMASTER_ALLOWED_ORIGINS``; ``*`` allows any). ``limits``: per-client limits (default: the services' settings).
    """
    url = redis_url or redis_url_of(services.redis)
    if url is None:
        raise ValueError("cannot tell the Redis URL of the services' client; pass redis_url")
    if allowed_origins is None:
        allowed_origins = services.settings.allowed_origins

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        gateway = Gateway(
            services,
            async_client(url, on_cluster=cluster.is_cluster_client(services.redis)),
            redis_url=url,
            allowed_origins=allowed_origins,
            max_websockets=max_websockets,
            wait_timeout_s=wait_timeout_s,
            limits=limits,
        )
        app.state.gateway = gateway
        gateway.hub.start()
        relay = ChatRelay(gateway, registry(app.state))  # table chat, and revoked sessions, to its sockets
        relay.start()
        log.info("gateway_ready", redis=url, games=sorted(services.store.games))
        try:
            yield
        finally:
            await relay.stop()
            await gateway.hub.stop()
            await gateway.link.close()
            await gateway.redis.aclose()

    app = GatewayApp(
        routes=routes(),
        lifespan=lifespan,
        exception_handlers={
            requests.ApiError: requests.api_error_handler,
            404: _not_found,
            405: _not_allowed,
            RedisError: _unavailable,  # unreachable, out of memory, disk full, read-only replica: all 503
            ClientDisconnect: _client_gone,
        },
    )
    app.add_middleware(LimitReads)  # inside the headers: a refused read carries them too
    app.add_middleware(SecurityHeaders)
    app.add_middleware(CountRequests)
    return app


class GatewayApp(Starlette):
    """Starlette, with the game WebSocket served without its middleware and routing around it: their
    coroutines would stay suspended for as long as each socket is open (~5 kB a socket), and a game socket
    needs none of them (it handles its own errors and refuses with close codes)."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            for route in self.router.routes:
                if isinstance(route, WebSocketRoute) and route.endpoint is ws.game_socket:
                    match, child = route.matches(scope)
                    if match is Match.FULL:
                        scope["app"] = self
                        scope.update(child)
                        await ws.game_socket(WebSocket(scope, receive, send))
                        return
        await super().__call__(scope, receive, send)


async def _not_found(request: Request, exc: Exception) -> Response:
    return requests.error_response(404, "not_found", f"no such page: {request.url.path}")


async def _not_allowed(request: Request, exc: Exception) -> Response:
    """405 with ``Allow``: the methods of every route on this path (a path may have one route per method)."""
    allowed: set[str] = set()
    for route in request.app.routes:
        if isinstance(route, Route) and route.path_regex.match(request.url.path):
            allowed |= route.methods or set()
    if not allowed:  # only the static files' mount has no Route of its own
        allowed = {"GET", "HEAD"}
    message = f"{request.method} is not allowed here"
    return requests.error_response(405, "method_not_allowed", message, {"Allow": ", ".join(sorted(allowed))})


RETRY_AFTER_S = 2
"""What a client is told to wait while Redis is unreachable (``serve`` restarts it within seconds)."""


async def _unavailable(request: Request, exc: Exception) -> Response:
    """Redis is down, not answering or refusing writes (``OOM``, ``MISCONF``, ``READONLY``…): 503 JSON with
    ``Retry-After``, not a 500 and a dropped keep-alive connection."""
    gateway: Gateway | None = getattr(request.app.state, "gateway", None)
    if gateway is not None:
        gateway.stats.unavailable += 1
    log.warning("redis_unavailable", path=request.url.path, error=str(exc) or type(exc).__name__)
    message = "the game store is unavailable; retry shortly"
    return requests.error_response(503, "unavailable", message, {"Retry-After": str(RETRY_AFTER_S)})


async def _client_gone(request: Request, exc: Exception) -> Response:
    """The client hung up mid-body: one quiet line, no traceback (nobody is left to answer)."""
    gateway: Gateway | None = getattr(request.app.state, "gateway", None)
    if gateway is not None:
        gateway.stats.client_disconnects += 1
    log.info("client_disconnected", method=request.method, path=request.url.path)
    return Response(status_code=400)


__all__ = ["create_app", "gateway_of"]
