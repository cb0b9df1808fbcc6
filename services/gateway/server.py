"""How uvicorn runs the gateway: its protocols, and the limits that hold before the application sees a byte.

``harbormaster gateway`` (and the tests' server) build their ``uvicorn.Config`` with ``uvicorn_options``:

- WebSockets through ``SocketProtocol`` with frames of at most ``MAX_WS_MESSAGE`` bytes, refused from a
  frame's header (uvicorn's default, 16 MiB, held an unfinished frame in memory until it was complete);
- HTTP through ``HeaderTimeoutProtocol``: a connection that has not finished a request's headers
  ``Limits.header_timeout_s`` after it opened, or after its previous response, is closed unanswered
  (uvicorn's keep-alive timer only starts after a first response, and any byte stops it), and so is one
  whose request body has not all come as long after its headers;
- a kept-alive connection silent between requests for ``Limits.idle_timeout_s`` is closed (uvicorn's
  ``timeout_keep_alive``);
- ``X-Forwarded-For`` / ``X-Forwarded-Proto`` are believed only from ``Limits.trusted_proxies`` (uvicorn
  believed them from 127.0.0.1 by default, so a client on the gateway's machine, or anything relayed
  through a local process, chose its address and escaped every per-address limit: issue 43, finding 15).

A stopping gateway gives its open requests and connections ``GRACEFUL_SHUTDOWN_S``, then cancels them.

``shared_port`` binds the listening socket that several gateway processes share (``--reuse-port``).
"""

from __future__ import annotations

import asyncio
import socket
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from services.config import Limits
from services.gateway.sockets.protocol import SocketProtocol
from services.gateway.wire.close_codes import MAX_WS_MESSAGE


class HeaderTimeoutProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with deadlines for each request's headers and then its body (see the
    module's docstring).

    The header deadline runs only while the connection waits for a request: from its opening, and from
    each response that leaves nothing queued; a request's complete headers stop it, and start the body's
    (as long again), which its last byte stops. A request that takes long to answer (``?wait=true``) is
    never cut; one whose body stops coming is (its handler sees the client gone)."""

    header_timeout_s = 10.0
    """Set per server by ``header_timeout_protocol``; 0 turns the deadlines off."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.deadline: asyncio.TimerHandle | None = None
        self.awaiting = ""
        """What the deadline waits for: ``headers``, ``body``, or nothing."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)  # type: ignore[arg-type]
        self._arm("headers")

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop()
        super().connection_lost(exc)

    def on_headers_complete(self) -> None:
        self._stop()
        super().on_headers_complete()
        if not (self.parser.should_upgrade() and self._should_upgrade()):  # a WebSocket has its own limits
            self._arm("body")

    def on_message_complete(self) -> None:
        if self.awaiting == "body":
            self._stop()
        super().on_message_complete()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.pipeline and not self.transport.is_closing():
            self._arm("headers")  # the next request's

    def _arm(self, awaiting: str) -> None:
        self._stop()
        if self.header_timeout_s > 0:
            self.awaiting = awaiting
            self.deadline = self.loop.call_later(self.header_timeout_s, self._overdue)

    def _stop(self) -> None:
        if self.deadline is not None:
            self.deadline.cancel()
            self.deadline = None
        self.awaiting = ""

    def _overdue(self) -> None:
        awaiting, self.deadline, self.awaiting = self.awaiting, None, ""
        if awaiting == "headers" and self.cycle is not None and not self.cycle.response_complete:
            return  # a request is being answered: its headers came after all
        if self.transport.get_protocol() is self and not self.transport.is_closing():
            self.transport.close()


def header_timeout_protocol(header_timeout_s: float) -> type[HeaderTimeoutProtocol]:
    """``HeaderTimeoutProtocol`` with this deadline (uvicorn makes a protocol from its class alone)."""
    return type("HeaderTimeoutProtocol", (HeaderTimeoutProtocol,), {"header_timeout_s": header_timeout_s})


GRACEFUL_SHUTDOWN_S = 10.0
"""How long a stopping gateway waits for its open requests and connections before it cancels them (uvicorn
waits without end by default): under ``serve`` it then still closes its Redis clients before the
supervisor's deadline (``services/supervise.py``'s ``STOP_GRACE_S``) kills it."""


def uvicorn_options(limits: Limits, compression: bool) -> dict[str, Any]:
    """The ``uvicorn.Config`` keywords the gateway runs with (besides the app, host, port and logging)."""
    return {
        "http": header_timeout_protocol(limits.header_timeout_s),
        "ws": SocketProtocol,
        "ws_max_size": MAX_WS_MESSAGE,
        "ws_per_message_deflate": compression,
        "timeout_keep_alive": limits.idle_timeout_s,
        "proxy_headers": bool(limits.trusted_proxies),
        "forwarded_allow_ips": list(limits.trusted_proxies),  # never FORWARDED_ALLOW_IPS, read by uvicorn
        "timeout_graceful_shutdown": GRACEFUL_SHUTDOWN_S,
    }


def shared_port(host: str, port: int) -> socket.socket:
    """A listening socket bound with ``SO_REUSEPORT``: several gateway processes on one port, the kernel
    spreading new connections between them (Linux)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind((host, port))
    return sock
