"""The gateway's fast link (``Multiplexed``) giving replies to a ``ReplySink`` (a socket's move), on a real Redis."""

from __future__ import annotations

import asyncio
from typing import Any

import hiredis
import pytest
import redis

from events.transport.multiplexed import Multiplexed, ReplySink

pytestmark = pytest.mark.redis


class Kept(ReplySink):
    """Keeps what it is given; ``broken`` raises on its first reply."""

    def __init__(self, broken: bool = False) -> None:
        self.replies: list[Any] = []
        self.failures: list[Exception] = []
        self.broken = broken

    def reply(self, value: Any) -> None:
        self.replies.append(value)
        if self.broken and len(self.replies) == 1:
            raise RuntimeError("a sink's own fault")

    def fail(self, error: Exception) -> None:
        self.failures.append(error)


def test_a_sink_gets_its_replies_in_order_among_futures_and_its_own_fault_breaks_nothing(
    redis_url: str, redis_client: redis.Redis
) -> None:
    async def scenario() -> tuple[Kept, Kept, list[Any], list[Any]]:
        link = Multiplexed(redis_url)
        await link.connect()
        first, broken = Kept(), Kept(broken=True)
        before = link.send([("SET", "k", "1")])
        link.send_to([("INCR", "k"), ("HGET", "nothing", "f"), ("LPUSH", "k", "x")], first)
        link.send_to([("INCR", "k"), ("INCR", "k")], broken)
        after = link.send([("GET", "k")])
        replies = [await future for future in before + after]
        still = await link.calls([("INCR", "k")])  # the link outlived the sink's fault
        await link.close()
        return first, broken, replies, still

    first, broken, replies, still = asyncio.run(scenario())
    assert first.replies[:2] == [2, None]
    assert isinstance(first.replies[2], hiredis.ReplyError)  # an error reply stays in its place
    assert broken.replies == [3, 4]  # the second reply came although the first raised
    assert replies == [b"OK", b"4"]
    assert still == [5]
    assert not first.failures and not broken.failures


def test_a_lost_connection_fails_each_reply_a_sink_still_awaits(
    redis_url: str, redis_client: redis.Redis
) -> None:
    async def scenario() -> Kept:
        link = Multiplexed(redis_url)
        await link.connect()
        sink = Kept()
        blocked = Kept()
        link.send_to([("BLPOP", "never", 0)], blocked)  # holds the link: nothing behind it is answered
        link.send_to([("PING",), ("PING",)], sink)
        await asyncio.sleep(0.05)
        redis_client.client_kill_filter(_id=str(link.client_id))
        for _ in range(100):
            if sink.failures:
                break
            await asyncio.sleep(0.01)
        return sink

    sink = asyncio.run(scenario())
    assert sink.replies == []
    assert len(sink.failures) == 2  # once per reply: the sink decides what one failure means


def test_calls_made_at_once_on_a_new_link_share_its_one_connection(
    redis_url: str, redis_client: redis.Redis
) -> None:
    """Every task that finds the link unconnected waits on one lock; those after the first find the
    connection made. Compiled, a ``connect`` in one body narrowed the transport to None past its first
    check and refused the one another task had made ('None object expected')."""

    async def scenario() -> list[list[Any]]:
        link = Multiplexed(redis_url)
        replies = await asyncio.gather(*(link.calls([("INCR", "together")]) for _ in range(5)))
        await link.close()
        return replies

    replies = asyncio.run(scenario())
    assert sorted(r[0] for r in replies) == [1, 2, 3, 4, 5]
