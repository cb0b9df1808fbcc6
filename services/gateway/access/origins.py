"""Which pages may open a game WebSocket: the ``Origin`` check, against hosts the operator configured.

Comparing ``Origin`` with the request's own ``Host`` header proves nothing: a page on a name its attacker
points at the gateway's address (DNS rebinding) sends the same name in both. So an origin is allowed only
if it is one of

- the origins of ``HARBORMASTER_ALLOWED_ORIGINS`` (``*`` allows any) and of ``HARBORMASTER_PUBLIC_URL``;
- the address the connection reached the gateway on (its bound host and port, e.g. ``http://127.0.0.1:8000``),
  and ``localhost`` at that port when that address is a loopback one (what ``serve`` tells users to open).

A request without ``Origin`` is not from a browser page and is allowed. Origins are compared by scheme
family (``http``/``ws``, ``https``/``wss``), host (case-insensitive) and port (the scheme's default when
none is written).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from urllib.parse import urlsplit

Key = tuple[bool, str, int]
"""An origin as compared: secure or not, host in lower case, port."""

_SECURE = {"https": True, "wss": True, "http": False, "ws": False}
_LOOPBACK_NAMES = ("localhost",)


def origin_key(origin: str) -> Key | None:
    """``origin`` as compared, or None if it is not an http(s)/ws(s) origin with a host and a valid port."""
    try:
        parts = urlsplit(origin.strip())
        secure = _SECURE.get(parts.scheme.lower())
        host, port = parts.hostname, parts.port
    except ValueError:  # a port out of range or not a number
        return None
    if secure is None or not host:
        return None
    return secure, host.lower(), port if port is not None else (443 if secure else 80)


def _is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host.split("%", 1)[0]).is_loopback
    except ValueError:
        return host.lower() in _LOOPBACK_NAMES


class Origins:
    """The origins configured for one gateway; ``allows`` adds the address each connection came in on."""

    __slots__ = ("any", "configured")

    def __init__(self, allowed: Iterable[str], public_url: str | None) -> None:
        listed = [*allowed, *([public_url] if public_url else [])]
        self.any = "*" in listed
        self.configured = frozenset(k for k in map(origin_key, listed) if k is not None)

    def allows(self, origin: str | None, server: tuple[str, int | None] | None) -> bool:
        """Whether a page of ``origin`` may open a socket that reached the gateway at ``server`` (the
        connection's local address: host and port; None or no port on a Unix socket)."""
        if origin is None or self.any:
            return True
        key = origin_key(origin)
        if key is None:
            return False
        return key in self.configured or (server is not None and key[1:] in bound_hosts(server))


def bound_hosts(server: tuple[str, int | None]) -> set[tuple[str, int]]:
    """The (host, port) pairs a page served by this gateway at ``server`` has as its own origin."""
    host, port = server
    if port is None:
        return set()
    host = host.lower().strip("[]")  # ``urlsplit`` gives an IPv6 origin's host without its brackets too
    names = {host, *_LOOPBACK_NAMES} if _is_loopback(host) else {host}
    return {(name, port) for name in names}
