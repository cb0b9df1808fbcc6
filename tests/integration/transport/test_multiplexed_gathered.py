"""The gateway's fast link (``Multiplexed``) gathering several replies into one future (a socket's move: its
submit's two replies), on a real Redis."""

from __future__ import annotations

import asyncio
from typing import Any

import hiredis
import redis
from redis.exceptions import ConnectionError as RedisConnectionError

from events.transport.multiplexed import Multiplexed


def test_gathered_replies_come_in_order_among_futures_with_errors_in_their_place(
    redis_url: str, redis_client: redis.Redis
) -> None:
    async def scenario() -> tuple[list[Any], list[Any], list[Any], list[Any]]:
        link = Multiplexed(redis_url)
        await link.connect()
        before = link.send([("SET", "k", "1")])
        first = link.send_gathered([("INCR", "k"), ("HGET", "nothing", "f"), ("LPUSH", "k", "x")])
        second = link.send_gathered([("INCR", "k"), ("INCR", "k")])
        after = link.send([("GET", "k")])
        replies = [await future for future in before + after]
        still = await link.calls([("INCR", "k")])
        await link.close()
        return await first, await second, replies, still

    first, second, replies, still = asyncio.run(scenario())
    assert first[:2] == [2, None]
    assert isinstance(first[2], hiredis.ReplyError)  # an error reply stays in its place
    assert second == [3, 4]
    assert replies == [b"OK", b"4"]
    assert still == [5]


def test_a_lost_connection_fails_a_gathered_future_once(redis_url: str, redis_client: redis.Redis) -> None:
    async def scenario() -> tuple[BaseException | None, bool]:
        link = Multiplexed(redis_url)
        await link.connect()
        blocked = link.send([("BLPOP", "never", 0)])  # holds the link: nothing behind it is answered
        pings = link.send_gathered([("PING",), ("PING",)])
        await asyncio.sleep(0.05)
        redis_client.client_kill_filter(_id=str(link.client_id))
        await asyncio.wait([pings], timeout=5)
        if blocked[0].done():
            blocked[0].exception()  # failed alike: seen, not logged as never retrieved
        return (pings.exception() if pings.done() else None), pings.done()

    lost, done = asyncio.run(scenario())
    assert done and isinstance(lost, RedisConnectionError)


def test_a_submit_not_yet_connected_connects_and_gives_both_replies(redis_url: str) -> None:
    """Before the link is connected a submit is a task (``held_task``) that connects first: the same
    future of two replies as the packed submit's."""

    async def scenario() -> tuple[list[Any], list[Any]]:
        link = Multiplexed(redis_url)
        unconnected = await link.submit("g", 4, b"seat:0:a", b"m")
        connected = await link.submit("g", 4, b"seat:0:b", b"m")
        await link.close()
        return unconnected, connected

    unconnected, connected = asyncio.run(scenario())
    assert unconnected[0] is None and connected[0] is None
    assert b"-" in unconnected[1] and b"-" in connected[1] and connected[1] > unconnected[1]


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
