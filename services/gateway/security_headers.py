"""Security headers on every HTTP answer of the gateway: pages, static files, the API and its errors
(issue 43, finding 18: pages sent no CSP and no ``X-Frame-Options``).

- ``Content-Security-Policy``: scripts, styles, sockets and everything else from the gateway's own origin
  only, and no inline script or style attribute (the web client has none: its pages load modules by
  ``src`` and draw with DOM calls; ``tests/browser/test_security_headers.py`` opens each page in Chromium
  and finds no violation). ``img-src`` also allows ``data:``: each page's empty favicon is one, so that the
  browser asks for no ``/favicon.ico``. ``frame-ancestors 'none'``: no other site puts a page in a frame
  (clickjacking a move or a password change); ``X-Frame-Options: DENY`` says the same to older browsers.
- ``Referrer-Policy: no-referrer``: a seat's link (``?token=``) never leaves in a ``Referer`` header.
- ``X-Content-Type-Options: nosniff``: an answer is what its type says (a chat line is never run as a
  script).

The game WebSocket is served around the middleware (``app.GatewayApp``): a socket is not a page.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

POLICY = (
    "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'"
)
HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"content-security-policy", POLICY.encode()),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-content-type-options", b"nosniff"),
)


class SecurityHeaders:
    """ASGI middleware: ``HEADERS`` added to every HTTP answer's head."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", ()), *HEADERS]
            await send(message)

        await self.app(scope, receive, send_with_headers)
