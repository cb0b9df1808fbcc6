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


_TAKE_AGAIN = """
local held = redis.call('GET', KEYS[1])
if held and held ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
"""


@contextlib.contextmanager
def owned(client: Any, key: str, ttl_ms: int, owner: str | None = None) -> Iterator[str | None]:
    """Own ``key`` for the block: yields this owner's token, or ``None`` when another owns it now (the
    caller leaves the work to that one). Released only by its owner.

    ``owner``: a name that stays the same across the attempts of one piece of work (an rq job's id, which
    rq runs once at a time): an attempt takes back the lease its earlier attempt held when it was killed,
    instead of finding it busy until it runs out (rq's retries came at once, found it busy and ended, and
    nothing tried again: the tournament chaos run's archive left unverified by a killed work-horse)."""
    token = owner or secrets.token_hex(16)
    if owner is None:
        took = client.set(key, token, nx=True, px=ttl_ms)
    else:
        took = int(client.eval(_TAKE_AGAIN, 1, key, token, ttl_ms)) == 1
    if not took:
        yield None
        return
    try:
        yield token
    finally:
        client.eval(_RELEASE, 1, key, token)
