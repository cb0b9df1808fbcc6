"""Changing a password, and signing an account out everywhere (issue 43, finding 18: there was neither).

Both end sessions in Redis (``accounts.py`` keeps each account's session digests in
``hm:account:<name>:sessions``) and return the digests ended, so that the gateway cuts off the sockets
opened with them (``services/gateway/access/revocation.py``).

The password hash has two writers (sign-up makes it with ``HSETNX``, a change replaces it), so a change is
a compare-and-set: it replaces the hash it checked the old password against, and nothing else. Two changes
at once: one wins, the other is told the password changed meanwhile.
"""

from __future__ import annotations

from typing import Any

from domain.players.rules import MAX_PASSWORD, checked_password
from services.players import accounts

_SWAP_HASH = """
if redis.call('HGET', KEYS[1], 'hash') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'hash', ARGV[2])
return 1
"""


async def sessions_of(redis: Any, name: str) -> list[str]:
    """The digests of the account's open sessions (as listed; an expired one may still be)."""
    return sorted(d.decode() for d in await redis.smembers(accounts.sessions_key(name)))


async def end_sessions(redis: Any, name: str, keep: str | None = None) -> list[str]:
    """End every session of the account but ``keep`` (a digest); returns the digests ended."""
    ended = [digest for digest in await sessions_of(redis, name) if digest != keep]
    if ended:
        pipe = redis.pipeline(transaction=False)
        for digest in ended:  # one key a command: the sessions' keys lie in different slots of a Cluster
            pipe.delete(accounts.session_key(digest))
        pipe.srem(accounts.sessions_key(name), *ended)
        await pipe.execute()
    return ended


async def change_password(
    redis: Any, hashing: accounts.Hashing, name: str, old: str, new: str, keep: str | None
) -> list[str]:
    """Replace the password of ``name`` (``old`` must be it) and end its other sessions; returns the digests
    ended. ``AccountError('bad_credentials')`` for a wrong old password, ``('changed_meanwhile')`` when
    another change won; ``RuleViolation`` for a new password the rules refuse."""
    stored, chosen = await redis.hmget(accounts.account_key(name), "hash", "name")
    if len(old) > MAX_PASSWORD:  # no password is that long: not worth a hash of its megabytes
        raise accounts.AccountError("bad_credentials", "that is not the account's password")
    if stored is None or chosen is None or not await hashing.run(accounts.matches, stored.decode(), old):
        raise accounts.AccountError("bad_credentials", "that is not the account's password")
    checked_password(new, chosen.decode())
    hashed = await hashing.run(accounts.hash_password, new)
    if not await redis.eval(_SWAP_HASH, 1, accounts.account_key(name), stored, hashed):
        raise accounts.AccountError("changed_meanwhile", "the password was changed meanwhile; sign in again")
    return await end_sessions(redis, name, keep)
