"""Sessions signed out, and the game sockets opened with them (issue 43, finding 14: a socket opened with a
session kept acting for its seat after the session was signed out).

A socket that a session cookie seated (``ws.py``) is registered here under the session's digest. Revoking a
session (sign-out, "sign out everywhere", a password change) deletes it in Redis, then:

- on the gateway that took the request, its sockets are cut off at once, before the answer is sent: taken
  out of their game's feed (``viewer.closed``: no more frames, and every command they send is refused) and
  closed with 4401;
- the digests are published on ``REVOKED``, and every gateway's relay (``chat_http.ChatRelay``) does the same
  for its own sockets;
- and each such socket asks Redis every ``SEAT_CACHE_S`` whether its session still exists, so that one whose
  revocation was published while a gateway was cut off from Redis (or whose session expired) is closed too.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from typing import Any

import msgspec
import structlog

from events import keys

log = structlog.get_logger("sessions")

REVOKED = keys.SESSIONS_REVOKED
"""The pub/sub channel of revoked sessions: a JSON list of session digests."""

Cut = Callable[[], None]
"""Cuts one socket off from its seat, at once (without waiting for anything)."""


class SessionSockets:
    """This gateway's sockets seated by a session, by the session's digest."""

    def __init__(self) -> None:
        self.by_digest: dict[str, set[Cut]] = {}
        self.closing: set[asyncio.Task[None]] = set()
        """Close handshakes under way (kept so that they are not collected before they end)."""

    def add(self, digest: str, cut: Cut) -> None:
        self.by_digest.setdefault(digest, set()).add(cut)

    def discard(self, digest: str, cut: Cut) -> None:
        cuts = self.by_digest.get(digest)
        if cuts is not None:
            cuts.discard(cut)
            if not cuts:
                del self.by_digest[digest]

    def cut(self, digests: Iterable[str]) -> int:
        """Cut off every socket of these sessions; returns how many."""
        cut = 0
        for digest in digests:
            for each in list(self.by_digest.pop(digest, ())):
                each()
                cut += 1
        if cut:
            log.info("session_sockets_closed", sockets=cut)
        return cut

    def closed_later(self, closing: Any) -> None:
        """Run a socket's close handshake in a task of its own, held until it ends."""
        task: asyncio.Task[None] = asyncio.ensure_future(closing)
        self.closing.add(task)
        task.add_done_callback(self.closing.discard)


def registry(state: Any) -> SessionSockets:
    """The app's registry (``app.state``), made on first use."""
    sockets: SessionSockets | None = getattr(state, "session_sockets", None)
    if sockets is None:
        sockets = state.session_sockets = SessionSockets()
    return sockets


async def revoke(redis: Any, state: Any, digests: list[str]) -> None:
    """Cut off this gateway's sockets of these (already deleted) sessions, then tell the other gateways."""
    if not digests:
        return
    registry(state).cut(digests)
    await redis.publish(REVOKED, msgspec.json.encode(digests))


def revoked_digests(data: bytes) -> list[str]:
    """The digests of a ``REVOKED`` message; none for one that cannot be read."""
    try:
        return msgspec.json.decode(data, type=list[str])
    except (msgspec.DecodeError, msgspec.ValidationError):
        log.warning("revocation_unreadable")
        return []
