"""Issue 43, finding 10: a sign-up refused at Redis's memory limit between its two writes (an older version's
hash, then name) left an account record with a hash and no name: ``name_taken`` for ever, sign-in 401.
Today's sign-up takes such a record over; ``serve``'s pass also removes them (``account_sweep``), so none
waits for someone to sign up with that name. The older version's two writes are made here, the second one
refused by a real out-of-memory Redis."""

from __future__ import annotations

import asyncio

import pytest
import redis
import redis.asyncio

from services.players import account_sweep, accounts

PASSWORD = "correct horse battery"


def older_sign_up_at_the_memory_limit(client: redis.Redis, name: str) -> None:
    """The older version's sign-up: the hash written, then the name refused at the memory limit."""
    client.hset(accounts.account_key(name), "hash", "$argon2id$v=19$m=19456,t=2,p=1$left$by-an-older-sign-up")
    client.config_set("maxmemory-policy", "noeviction")
    client.config_set("maxmemory", 1)
    try:
        with pytest.raises(redis.exceptions.OutOfMemoryError):
            client.hset(accounts.account_key(name), "name", name)
    finally:
        client.config_set("maxmemory", 0)


def test_serves_sweep_removes_nameless_records_and_keeps_every_account(
    redis_url: str, redis_client: redis.Redis
) -> None:
    asyncio.run(_sign_up(redis_url, "ann"))
    redis_client.sadd(f"{accounts.account_key('ann')}:known", "tag")  # an account's other keys stay
    older_sign_up_at_the_memory_limit(redis_client, "dee")
    older_sign_up_at_the_memory_limit(redis_client, "eve")
    redis_client.sadd(f"{accounts.account_key('eve')}:known", "tag")  # a key of the record, gone with it
    redis_client.zadd(f"{accounts.account_key('eve')}:games", {"g1": 1})  # not the record's: left alone
    assert redis_client.hget(accounts.account_key("dee"), "name") is None  # the finding's state
    assert account_sweep.sweep_nameless(redis_client) == 2
    assert not redis_client.exists(accounts.account_key("dee"), accounts.account_key("eve"))
    assert not redis_client.exists(f"{accounts.account_key('eve')}:known")
    assert redis_client.exists(f"{accounts.account_key('eve')}:games")
    assert redis_client.hget(accounts.account_key("ann"), "name") == b"ann"
    assert redis_client.exists(f"{accounts.account_key('ann')}:known")
    assert asyncio.run(_verify(redis_url, "ann")) == "ann"
    assert asyncio.run(_sign_up(redis_url, "dee")) == "dee"  # the name is free
    older_sign_up_at_the_memory_limit(redis_client, "fay")
    assert account_sweep.sweep_nameless(redis_client) == 0  # once per Redis: today's sign-up makes none
    assert redis_client.exists(accounts.account_key("fay"))  # (and takes such a record over)


async def _sign_up(url: str, name: str) -> str:
    async with redis.asyncio.Redis.from_url(url) as client:
        return await accounts.sign_up(client, accounts.Hashing(), name, PASSWORD)


async def _verify(url: str, name: str) -> str:
    async with redis.asyncio.Redis.from_url(url) as client:
        return await accounts.verify(client, accounts.Hashing(), name, PASSWORD)
