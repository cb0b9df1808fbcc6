"""``LimitReads``: reads of the API per address, refused before any handler runs (issue 43, finding 15).

One address read the public game list 301 times a second, every read a Redis round trip and a page of JSON
(the others' moves went from p50 7 to 20 ms). Every ``GET``/``HEAD`` under ``/api/`` is now charged to its
address's bucket (``HARBORMASTER_READS_PER_ADDRESS`` a second, bursts of ``HARBORMASTER_RATE_BURST``
seconds' worth); past it, 429 with ``Retry-After``. Signed-in reads are charged too: a cookie or a token is
not checked before the charge (checking it is the Redis round trip the limit saves), so sending one must
not buy a way around it. Pages and static files are not charged (a browser fetches them once and caches).
"""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

from services.gateway.access.limits import ClientLimits, retry_after
from services.gateway.wire.errors import error_response

READS = ("GET", "HEAD")


class LimitReads:
    """ASGI middleware charging each API read to its client's address."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] in READS and scope["path"].startswith("/api/"):
            # the gateway's (``context.Gateway``), read by name: the access layer sits below it
            limits: ClientLimits | None = getattr(
                getattr(scope["app"].state, "gateway", None), "limits", None
            )
            client = scope.get("client")
            if limits is not None:
                wait_s = limits.read(client[0] if client else "unknown")
                if wait_s > 0:
                    message = "too many reads from this address"
                    refusal = error_response(
                        429, "rate_limited", message, {"Retry-After": retry_after(wait_s)}
                    )
                    await refusal(scope, receive, send)
                    return
        await self.app(scope, receive, send)
