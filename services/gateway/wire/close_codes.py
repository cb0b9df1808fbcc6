"""WebSocket close codes: every refusal closes a socket with one of these, after the handshake, with a reason.

=======  =================================================================
4400     bad request: ``from`` is not a sequence number, or a frame is not a known message
4401     the token is not a seat token of this game
4403     the ``Origin`` header is not an allowed origin
4404     no such game
4429     this gateway, or this client address, holds as many WebSockets as it may (``docs/limits.md``)
1007     a frame from the client is JSON nested deeper than ``json_checks.MAX_DEPTH``
1009     a frame from the client is larger than ``MAX_WS_MESSAGE`` bytes (refused from its header, unread)
1008     the client broke its budget: more frames than ``Limits.frames_per_socket`` allows, or answers
         (pongs, results) left unread beyond ``viewer.NOTES_LIMIT`` or the socket's write buffer
1013     Redis is unreachable: try again later
1001     the gateway is shutting down
=======  =================================================================
"""

from __future__ import annotations

MAX_WS_MESSAGE = 16 * 1024
"""The largest WebSocket frame a client may send (bytes); more closes the socket with 1009."""

CLOSE_BAD_REQUEST = 4400
CLOSE_BAD_TOKEN = 4401
CLOSE_BAD_ORIGIN = 4403
CLOSE_UNKNOWN_GAME = 4404
CLOSE_TOO_MANY = 4429
CLOSE_TOO_BIG = 1009
CLOSE_BAD_DATA = 1007
CLOSE_FLOODED = 1008
CLOSE_UNAVAILABLE = 1013
CLOSE_GOING_AWAY = 1001
MAX_CLOSE_REASON = 123
"""A close frame's reason may be at most 123 bytes of UTF-8 (RFC 6455 5.5: 125 less the code)."""


def close_reason(text: str) -> str:
    """``text`` cut to ``MAX_CLOSE_REASON`` bytes of UTF-8, never inside a character."""
    return text.encode()[:MAX_CLOSE_REASON].decode("utf-8", "ignore")


class Refusal(Exception):
    """A socket refused or ended by the gateway: the close code and the reason it is sent."""

    def __init__(self, code: int, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason
