"""Accounts and sessions in Redis.

- ``hm:account:<name in lower case>``: a hash with the name as chosen, the Argon2id hash of the password
  (never the password) and when it was made.
- ``hm:session:<sha256 of the cookie>``: the account a session belongs to, with a lifetime. Only the digest
  is stored, so a copy of the database signs nobody in; deleting the key revokes the session at once.
- ``hm:account:<name>:sessions``: the account's session digests, so that every one can be revoked.
- ``hm:signin:name:<name>`` / ``hm:signin:addr:<address>``: sorted sets of recent sign-in attempts' times,
  read with ``domain.players.throttle``.

Hashing runs in a thread: Argon2id is made to be slow (~25 ms, 19 MiB), and the event loop must not wait
for it. At most ``HASHING_AT_ONCE`` hashes run at a time per gateway (``Hashing``): a crowd of sign-ins
waits its turn instead of taking a thread and 19 MiB each, and past a short queue is refused at once.
"""

from __future__ import annotations

import functools
import hashlib
import os
import secrets
import time
from typing import Any

import anyio.to_thread
import structlog
from anyio import CapacityLimiter
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from domain.players.reserved import check_unreserved
from domain.players.rules import checked_name, checked_password, name_key
from domain.players.throttle import Window
from events import keys

log = structlog.get_logger("accounts")

SESSION_TTL_S = 30 * 86_400
HASHING_AT_ONCE = max(1, min(4, (os.cpu_count() or 1) - 1))
"""A core is left to the event loop: with every core hashing, a flood of sign-ins slowed every move too."""
HASHING_KEPT = 4
"""Places beyond the queue kept for sign-ins from an address that signed in to that account before: a crowd
filling the queue does not keep the owner out (issue 43, findings 12 and 15)."""
_hasher = PasswordHasher(time_cost=2, memory_cost=19_456, parallelism=1)
"""OWASP's Argon2id parameters (19 MiB, 2 passes, 1 lane): ~25 ms of one core a hash, where argon2-cffi's
default (RFC 9106's second choice: 64 MiB, 3 passes, 4 lanes) took ~180 ms of CPU, so a 2-core gateway
checked 5 sign-ins a second. A stored hash names its own parameters, so changing these later still
verifies every password kept."""


@functools.cache
def _dummy_hash() -> str:
    """Verified against when the name is unknown, so that an unknown name takes as long as a wrong password
    (made on first need: importing this module must not cost a hash)."""
    return _hasher.hash("not a password of anyone's")


_CREATE = """
if redis.call('HEXISTS', KEYS[1], 'name') == 1 then return 0 end
redis.call('HSET', KEYS[1], 'hash', ARGV[1], 'name', ARGV[2], 'created_ms', ARGV[3])
return 1
"""
"""An account's record, whole in one step: its hash and its name together (issue 43, finding 10: a sign-up
refused at Redis's memory limit between the two left a hash with no name, ``name_taken`` for ever and no
sign-in). A record with no name, left so by an older version, is taken over by the next sign-up (its
fields are the three written here). ``HSET`` is the script's only write: at the memory limit it is refused."""


class AccountError(Exception):
    """A refusal with a stable code: ``name_taken``, ``bad_credentials``."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class HashingBusy(Exception):
    """Every hashing thread is busy and ``queue`` requests wait already: refused at once (issue 43, finding
    15: a hundred addresses signing in within their limits had everyone's sign-in wait 6.6 s)."""


class Hashing:
    """Runs Argon2id in threads, at most ``HASHING_AT_ONCE`` at a time, with at most ``queue`` more waiting
    (``HARBORMASTER_HASHING_QUEUE``); one per gateway: its limiter belongs to the gateway's event loop, so it
    is made on first use there."""

    def __init__(self, queue: int = 8) -> None:
        self._limiter: CapacityLimiter | None = None
        self.queue = queue
        self.admitted = 0
        """Hashes running or waiting for a thread."""

    def full(self, known: bool = False) -> bool:
        """Whether one more hash would be refused (asked first, so that a refusal costs no Redis round trip);
        ``known``: a sign-in from an address that signed in to that account before, which may also take one
        of the ``HASHING_KEPT`` places a crowd of strangers cannot fill."""
        return self.admitted >= HASHING_AT_ONCE + self.queue + (HASHING_KEPT if known else 0)

    async def run(self, work: Any, *args: str, known: bool = False) -> Any:
        """``work(*args)`` in a hashing thread; ``HashingBusy`` at once when the queue is full."""
        if self._limiter is None:
            self._limiter = CapacityLimiter(HASHING_AT_ONCE)
        if self.full(known):
            raise HashingBusy("every password hasher is busy; retry shortly")
        self.admitted += 1
        try:
            return await anyio.to_thread.run_sync(work, *args, limiter=self._limiter)
        finally:
            self.admitted -= 1


def account_key(name: str) -> str:
    return keys.account(name_key(name))


def sessions_key(name: str) -> str:
    return keys.account_part(name_key(name), "sessions")


def session_key(digest: str) -> str:
    return keys.session(digest)


def session_digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


async def sign_up(redis: Any, hashing: Hashing, name: str, password: str) -> str:
    """Make an account; returns its name as chosen. ``RuleViolation`` for a bad name or password,
    ``AccountError('name_taken')`` when the name (in any case) is someone's."""
    name = checked_name(name)
    checked_password(password, name)
    check_unreserved(name)
    hashed = await hashing.run(_hasher.hash, password)
    if not int(await redis.eval(_CREATE, 1, account_key(name), hashed, name, int(time.time() * 1000))):
        raise AccountError("name_taken", f"the name {name!r} is taken")
    log.info("account_created", account=name)
    return name


async def verify(redis: Any, hashing: Hashing, name: str, password: str, known: bool = False) -> str:
    """The account's name as chosen if ``password`` is its password, else ``AccountError``. An unknown name
    costs the same hashing as a wrong password (no telling which names exist by timing). ``known``: asked
    from an address that signed in to the account before (``Hashing.full``)."""
    fields = await redis.hmget(account_key(name), "hash", "name") if isinstance(name, str) else [None, None]
    stored, chosen = fields
    hashed = stored.decode() if stored else _dummy_hash()
    ok = bool(await hashing.run(_matches, hashed, password if isinstance(password, str) else "", known=known))
    if not ok or stored is None or chosen is None:
        raise AccountError("bad_credentials", "wrong name or password")
    return str(chosen.decode())


def _matches(hashed: str, password: str) -> bool:
    try:
        return _hasher.verify(hashed, password)
    except (VerificationError, InvalidHashError):
        return False


matches = _matches
"""Whether ``password`` is the one ``hashed`` was made from (blocking: run it through ``Hashing``)."""


def hash_password(password: str) -> str:
    """The Argon2id hash kept of a password (blocking: run it through ``Hashing``)."""
    return _hasher.hash(password)


async def exists(redis: Any, name: str) -> str | None:
    """The account's name as chosen, or None."""
    raw = await redis.hget(account_key(name), "name")
    return str(raw.decode()) if raw else None


# --- sessions -------------------------------------------------------------------------------------------


async def open_session(redis: Any, name: str) -> str:
    """A new session of ``name``: the cookie's secret (returned once; Redis keeps its digest)."""
    secret = secrets.token_urlsafe(32)
    digest = session_digest(secret)
    pipe = redis.pipeline(transaction=False)
    pipe.set(session_key(digest), name_key(name), ex=SESSION_TTL_S)
    pipe.sadd(sessions_key(name), digest)
    pipe.expire(sessions_key(name), SESSION_TTL_S)
    await pipe.execute()
    return secret


async def session_account(redis: Any, secret: str | None) -> str | None:
    """The account (name in lower case) a session cookie belongs to, or None (none, expired, revoked)."""
    if not secret or len(secret) > 100:
        return None
    raw = await redis.get(session_key(session_digest(secret)))
    return str(raw.decode()) if raw else None


async def close_session(redis: Any, secret: str) -> None:
    """Sign out: the session is gone from Redis, whatever the browser keeps."""
    digest = session_digest(secret)
    account = await redis.get(session_key(digest))
    pipe = redis.pipeline(transaction=False)
    pipe.delete(session_key(digest))
    if account:
        pipe.srem(sessions_key(account.decode()), digest)
    await pipe.execute()


# --- throttling -----------------------------------------------------------------------------------------


async def throttle_wait(redis: Any, key: str, window: Window, now: float) -> float:
    """Record one attempt under ``key`` unless it is over ``window``; the seconds to wait (0: recorded)."""
    floor = now - window.period
    pipe = redis.pipeline(transaction=False)
    pipe.zremrangebyscore(key, "-inf", floor)
    pipe.zrangebyscore(key, floor, "+inf", withscores=True)
    _, recent = await pipe.execute()
    wait = window.wait([score for _, score in recent], now)
    if wait > 0:
        return wait
    pipe = redis.pipeline(transaction=False)
    pipe.zadd(key, {f"{now:.6f}-{secrets.token_hex(4)}": now})
    pipe.expire(key, int(window.period) + 1)
    await pipe.execute()
    return 0.0


def name_throttle_key(name: str) -> str:
    return keys.signin_name(name_key(name))


def address_throttle_key(address: str) -> str:
    return keys.signin_address(address)
