"""Who may try a password now: sign-in windows that an attacker cannot use to lock the owner out.

Issue 43, finding 12: ten wrong passwords a minute on a name, from any addresses, had the owner refused
(429) with the right password for as long as it went on. Now, in Redis (every gateway counts together):

- attempts are counted per (account name, address) pair (``HARBORMASTER_SIGNIN_PER_NAME`` a minute) and
  per address (``HARBORMASTER_SIGNIN_PER_ADDRESS``): an attacker's guesses use up the attacker's pairs,
  never the owner's;
- failed attempts on a name are counted from every address together; past
  ``HARBORMASTER_SIGNIN_FAILURES_PER_NAME`` in a minute the name is under attack, and only addresses that
  signed in to that account before may try it (each still within its pair's window). A guesser spread over
  many addresses is stopped there; the owner at an address they used before is not. (The owner at a new
  address waits until the attack ends: the price of not letting every address guess.)

An account's known addresses are kept as truncated SHA-256 digests, at most ``MAX_KNOWN`` of them (a full
set forgets one at random), never as addresses.
"""

from __future__ import annotations

import hashlib
import secrets
from typing import Any

import msgspec

from domain.players.rules import name_key
from domain.players.throttle import Window
from events import keys
from services.players import accounts
from services.players.settings import PlayerSettings

MINUTE = 60.0
MAX_KNOWN = 32
"""Addresses an account is known to sign in from: enough for a person's devices and networks."""
KNOWN_TTL_S = 90 * 86_400
"""An account not signed in to for this long forgets its addresses (a sign-in keeps them)."""


def pair_key(name: str, address: str) -> str:
    return keys.signin_pair(name_key(name), address)


def failures_key(name: str) -> str:
    return keys.signin_failed(name_key(name))


def known_key(name: str) -> str:
    return f"{accounts.account_key(name)}:known"


def address_tag(address: str) -> str:
    """What is kept of an address an account signed in from."""
    return hashlib.sha256(address.encode()).hexdigest()[:32]


class Admission(msgspec.Struct, frozen=True):
    """What ``admit`` decided: the seconds to wait (0: go on), what was over its window, and whether the
    address signed in to that account before."""

    wait_s: float
    over: str = ""
    known: bool = False


async def admit(
    redis: Any, settings: PlayerSettings, name: str | None, address: str, now: float
) -> Admission:
    """Count one sign-in attempt on ``name`` (None: a sign-up, counted by address only) from ``address``."""
    known = False
    if name is not None:
        known, wait_s = await _known_and_attacked(
            redis, settings.signin_failures_per_name, name, address, now
        )
        if wait_s > 0:
            return Admission(wait_s, "on this account name from a new address while it is under attack")
    checks: list[tuple[str, int, str]] = []
    if settings.signin_per_address > 0:
        checks.append(
            (accounts.address_throttle_key(address), settings.signin_per_address, "from this address")
        )
    if name is not None and settings.signin_per_name > 0:
        checks.append(
            (pair_key(name, address), settings.signin_per_name, "on this account name from this address")
        )
    for key, limit, who in checks:
        wait_s = await accounts.throttle_wait(redis, key, Window(limit, MINUTE), now)
        if wait_s > 0:
            return Admission(wait_s, who, known)
    return Admission(0.0, "", known)


async def _known_and_attacked(
    redis: Any, limit: int, name: str, address: str, now: float
) -> tuple[bool, float]:
    """Whether ``address`` signed in to ``name`` before; and 0.0, or, when ``name`` has failed ``limit``
    times in the last minute (``limit`` 0: never) and the address is new to it, the seconds until the
    failures fall under the limit."""
    floor = now - MINUTE
    pipe = redis.pipeline(transaction=False)
    pipe.sismember(known_key(name), address_tag(address))
    if limit > 0:
        pipe.zremrangebyscore(failures_key(name), "-inf", floor)
        pipe.zrangebyscore(failures_key(name), floor, "+inf", withscores=True)
    known, *rest = await pipe.execute()
    if known or limit <= 0 or len(rest[1]) < limit:
        return bool(known), 0.0
    return False, Window(limit, MINUTE).wait([score for _, score in rest[1]], now)


async def failed(redis: Any, name: str, now: float) -> None:
    """A wrong password (or an unknown name) on ``name``: counted towards the name's attack threshold."""
    pipe = redis.pipeline(transaction=False)
    pipe.zadd(failures_key(name), {f"{now:.6f}-{secrets.token_hex(4)}": now})
    pipe.expire(failures_key(name), int(MINUTE) + 1)
    await pipe.execute()


async def succeeded(redis: Any, name: str, address: str) -> None:
    """``address`` signed in to ``name``: it may try that name even while the name is under attack."""
    key, tag = known_key(name), address_tag(address)
    pipe = redis.pipeline(transaction=False)
    pipe.sismember(key, tag)
    pipe.scard(key)
    known, count = await pipe.execute()
    if not known and int(count) >= MAX_KNOWN:
        await redis.spop(key)  # a full set forgets one address at random
    pipe = redis.pipeline(transaction=False)
    pipe.sadd(key, tag)
    pipe.expire(key, KNOWN_TTL_S)
    await pipe.execute()
