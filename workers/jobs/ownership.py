"""One owner at a time for a stored thing that several processes may want to write (an archive, a round's
close): ``SET key token NX PX ttl`` to take it, a compare-and-delete to give it back, so only the owner
releases it and a lease that ran out (its owner died) lets the next one in."""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import Iterator
from typing import Any

_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


@contextlib.contextmanager
def owned(client: Any, key: str, ttl_ms: int) -> Iterator[str | None]:
    """Own ``key`` for the block: yields this owner's token, or ``None`` when another owns it now (the
    caller leaves the work to that one). Released only by its owner."""
    token = secrets.token_hex(16)
    if not client.set(key, token, nx=True, px=ttl_ms):
        yield None
        return
    try:
        yield token
    finally:
        client.eval(_RELEASE, 1, key, token)
