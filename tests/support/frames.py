"""WebSocket frames as a client writes them, byte for byte, for tests that feed the gateway's reader."""

from __future__ import annotations

import os
import struct


def client_frame(
    payload: bytes, opcode: int = 0x1, fin: bool = True, rsv: int = 0, masked: bool = True
) -> bytes:
    """A frame as a client sends it (RFC 6455 5.2), masked unless told otherwise."""
    first = (0x80 if fin else 0) | rsv | opcode
    size = len(payload)
    if size < 126:
        head = struct.pack("!BB", first, (0x80 if masked else 0) | size)
    elif size < 1 << 16:
        head = struct.pack("!BBH", first, (0x80 if masked else 0) | 126, size)
    else:
        head = struct.pack("!BBQ", first, (0x80 if masked else 0) | 127, size)
    if not masked:
        return head + payload
    key = os.urandom(4)
    return head + key + bytes(byte ^ key[i % 4] for i, byte in enumerate(payload))
