"""A server's text frame (RFC 6455 5.2), framed once and written to many sockets."""

from __future__ import annotations

import struct


def text_frame(payload: bytes) -> bytes:
    """A final, unmasked text frame (RFC 6455 5.2): what a server sends, framed once for many sockets."""
    size = len(payload)
    if size < 126:
        return struct.pack("!BB", 0x81, size) + payload
    if size < 1 << 16:
        return struct.pack("!BBH", 0x81, 126, size) + payload
    return struct.pack("!BBQ", 0x81, 127, size) + payload
