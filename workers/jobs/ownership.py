"""One owner at a time for a stored thing that several processes may want to write (an archive, a round's
close): ``SET key token NX PX ttl`` to take it, a compare-and-delete to give it back, so only the owner
releases it and a lease that ran out (its owner died) lets the next one in."""

from __future__ import annotations

import contextlib
import secrets
import threading
from collections.abc import Iterator, Sequence
from typing import Any

import redis
import structlog

log = structlog.get_logger("ownership")

_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


_RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
"""

_TAKE_AGAIN = """
local held = redis.call('GET', KEYS[1])
if held and held ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
"""


@contextlib.contextmanager
def owned(
    client: Any, key: str, ttl_ms: int, owner: str | None = None, renew: bool = False
) -> Iterator[str | None]:
    """Own ``key`` for the block: yields this owner's token, or ``None`` when another owns it now (the
    caller leaves the work to that one). Released only by its owner.

    ``owner``: a name that stays the same across the attempts of one piece of work (an rq job's id, which
    rq runs once at a time): an attempt takes back the lease its earlier attempt held when it was killed,
    instead of finding it busy until it runs out (rq's retries came at once, found it busy and ended, and
    nothing tried again: the tournament chaos run's archive left unverified by a killed work-horse).

    ``renew``: a thread renews the lease every third of ``ttl_ms`` while the block runs, so work longer
    than ``ttl_ms`` keeps it (a 10,000-player round's close took 122-142 s against a 120 s lease: issue 42),
    and a dead owner's lease still runs out within ``ttl_ms``."""
    token = owner or secrets.token_hex(16)
    if owner is None:
        took = client.set(key, token, nx=True, px=ttl_ms)
    else:
        took = int(client.eval(_TAKE_AGAIN, 1, key, token, ttl_ms)) == 1
    if not took:
        yield None
        return
    keeper = _Renewer(client, key, token, ttl_ms) if renew else None
    try:
        yield token
    finally:
        if keeper is not None:
            keeper.stop()
        client.eval(_RELEASE, 1, key, token)


def take_many(client: Any, keys: Sequence[str], ttl_ms: int) -> tuple[str, list[str]]:
    """``owned``'s taking for many keys in one pipeline (a standalone Redis): one token for all, and the
    keys it took (the others are another owner's now: their work is left to that one)."""
    token = secrets.token_hex(16)
    pipe = client.pipeline(transaction=False)
    for key in keys:
        pipe.set(key, token, nx=True, px=ttl_ms)
    return token, [key for key, took in zip(keys, pipe.execute(), strict=True) if took]


def release_many(client: Any, keys: Sequence[str], token: str) -> None:
    """Give back the keys ``token`` owns, in one pipeline (each only if still that owner's)."""
    pipe = client.pipeline(transaction=False)
    for key in keys:
        pipe.eval(_RELEASE, 1, key, token)
    pipe.execute()


class _Renewer:
    """Renews one held lease on a daemon thread until stopped."""

    def __init__(self, client: Any, key: str, token: str, ttl_ms: int) -> None:
        self.client, self.key, self.token, self.ttl_ms = client, key, token, ttl_ms
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._run, name="hm-lease-renew", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stopped.wait(self.ttl_ms / 3000):
            try:
                held = int(self.client.eval(_RENEW, 1, self.key, self.token, self.ttl_ms)) == 1
            except redis.RedisError as exc:  # an outage: the next beat tries again; the lease may run out
                log.warning("lease_renew_failed", key=self.key, error=str(exc))
                continue
            if not held:  # taken by another after it ran out: the work's own writes are compare-and-set
                log.warning("lease_lost", key=self.key)
                return

    def stop(self) -> None:
        self._stopped.set()
        self._thread.join()
