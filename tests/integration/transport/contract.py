"""The transport's contract (``events/transport/interface.py``), as scenarios any implementation must pass:
run over the fast and the plain ones on one Redis (``test_contract.py``) and on a Cluster
(``tests/cluster/test_transport_on_cluster.py``). Each scenario returns nothing and asserts what it found.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import msgspec
from redis.exceptions import ResponseError

from events import keys
from events.transport.interface import Appender, Link
from events.transport.resp import submit_calls

MakeLink = Callable[[], Link]
"""Makes a link inside the running event loop (an asyncio client belongs to its loop)."""
MakeAppender = Callable[[str], Appender]
"""Makes an appender of the given script."""

ECHO = "return {KEYS[1], ARGV[1]}"
"""A stand-in for the append script: answers each call with its game's key and its argument."""
FAIL_ON_X = "if ARGV[1] == 'x' then return redis.error_reply('ERR refused x') end return ARGV[1]"


async def submitted(link: Link, game_id: str, field: bytes, message: bytes, partitions: int = 4) -> list[Any]:
    """The two replies of a submit (a lost connection raises)."""
    return await asyncio.wait_for(link.submit(game_id, partitions, field, message), 30)


def calls_come_back_in_order_and_errors_in_their_place(make: MakeLink) -> None:
    async def scenario() -> None:
        link = make()
        try:
            replies = await link.calls([("SET", "{t}a", "1"), ("INCR", "{t}a"), ("GET", "{t}a")])
            assert replies == [b"OK", 2, b"2"]
            assert await link.call("INCRBY", "{t}a", 5) == 7
            each = await link.each([("INCR", "{t}a"), ("HGET", "{t}a", "f"), ("GET", "{t}a")])
            assert each[0] == 8 and each[2] == b"8"
            assert isinstance(each[1], ResponseError) and "WRONGTYPE" in str(each[1])
            try:
                await link.calls([("LPUSH", "{t}a", "x")])
            except ResponseError as exc:
                assert "WRONGTYPE" in str(exc)
            else:
                raise AssertionError("an error reply must raise from calls")
        finally:
            await link.close()

    asyncio.run(scenario())


def a_submit_appends_to_the_inbox_and_answers_an_earlier_result(make: MakeLink, inspect: Any) -> None:
    """A new command: ``None`` for the results check, then the ``XADD``'s entry id, and the message is on the
    game's partition. An id with a recorded result: that result comes back first."""
    game_id, field, message = "g1", b"seat:0:c1", msgspec.msgpack.encode({"command": "x"})

    async def scenario() -> tuple[list[Any], list[Any]]:
        link = make()
        try:
            new = await submitted(link, game_id, field, message)
            await link.call("HSET", keys.results(game_id), field, b"recorded")
            again = await submitted(link, game_id, field, message)
            return new, again
        finally:
            await link.close()

    new, again = asyncio.run(scenario())
    assert len(new) == len(again) == 2
    assert new[0] is None and isinstance(new[1], bytes) and b"-" in new[1]
    assert again[0] == b"recorded"
    inbox = submit_calls(game_id, 4, field, message)[1][1]
    entries = inspect.xrange(inbox)
    assert [e[1][b"m"] for e in entries] == [message, message]
    assert entries[0][0] == new[1]


def batches_written_ahead_come_back_in_order(make: MakeAppender) -> None:
    appender = make(ECHO)
    try:
        first = appender.pack_appends([(("{g:a}:e",), ["1"]), (("{g:b}:e",), ["2"])])
        second = appender.pack_appends([(("{g:c}:e",), ["3"])])
        appender.send_packed(first, 2)
        appender.send_packed(second, 1)  # before the first batch's replies are read
        assert appender.outstanding == 3
        assert appender.receive(2) == [[b"{g:a}:e", b"1"], [b"{g:b}:e", b"2"]]
        assert appender.receive(1) == [[b"{g:c}:e", b"3"]]
        assert appender.outstanding == 0
    finally:
        appender.close()


def an_error_reply_is_its_exception_in_its_place(make: MakeAppender) -> None:
    appender = make(FAIL_ON_X)
    try:
        batch = appender.pack_appends([(("{g:a}:e",), ["1"]), (("{g:b}:e",), ["x"]), (("{g:c}:e",), ["3"])])
        appender.send_packed(batch, 3)
        one, refused, three = appender.receive(3)
        assert (one, three) == (b"1", b"3")
        assert isinstance(refused, ResponseError) and "refused x" in str(refused)
    finally:
        appender.close()


def a_lost_script_cache_is_answered_then_loaded_again(
    make: MakeAppender, flush_scripts: Callable[[], object]
) -> None:
    """``SCRIPT FLUSH`` (a restart, a promoted replica): that batch's call is answered with
    ``NoScriptError`` (the worker decides it again), or, where the implementation loads the script and sends
    the call again itself (the Cluster appender), it runs; either way the next batch runs."""
    import redis

    appender = make(ECHO)
    try:
        flush_scripts()
        appender.send_packed(appender.pack_appends([(("{g:a}:e",), ["1"])]), 1)
        (first,) = appender.receive(1)
        assert isinstance(first, redis.exceptions.NoScriptError) or first == [b"{g:a}:e", b"1"], first
        appender.send_packed(appender.pack_appends([(("{g:a}:e",), ["2"])]), 1)
        assert appender.receive(1) == [[b"{g:a}:e", b"2"]]
    finally:
        appender.close()
