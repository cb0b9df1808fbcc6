"""Whom an account has muted in table chat: a set kept with the account (``hm:account:<name>:muted``), so that
a mute holds on every device its person signs in on.

A mute hides an author for the one who muted, nobody else: the messages are still stored, exported and
delivered; the page leaves a muted author's lines hidden.
"""

from __future__ import annotations

from typing import Any

from domain.players.rules import MAX_MUTED, name_key
from events import keys


class MuteError(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def muted_key(account: str) -> str:
    return keys.account_part(name_key(account), "muted")


async def muted(redis: Any, account: str) -> list[str]:
    """The authors ``account`` has muted, in order of their names."""
    return sorted(member.decode("utf-8", "replace") for member in await redis.smembers(muted_key(account)))


async def mute(redis: Any, account: str, author: str) -> None:
    """Add ``author`` (muting one already muted changes nothing); ``MuteError`` beyond ``MAX_MUTED``."""
    key = muted_key(account)
    if await redis.sismember(key, author):
        return
    if await redis.scard(key) >= MAX_MUTED:
        raise MuteError("too_many_muted", f"at most {MAX_MUTED} authors can be muted; unmute one first")
    await redis.sadd(key, author)


async def unmute(redis: Any, account: str, author: str) -> None:
    await redis.srem(muted_key(account), author)
