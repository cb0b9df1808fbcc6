"""The transport's contract (``tests/integration/transport/contract.py``) on one real Redis, for each implementation:
the gateway's fast link (``Multiplexed``) and its plain one (``PlainLink``), the fold worker's fast
appender (``ScriptPipeline``) and its plain one (``PlainAppender``)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import redis
import redis.asyncio as aioredis

from events.transport.interface import Appender, Link
from events.transport.multiplexed import Multiplexed
from events.transport.pipelined import ScriptPipeline
from events.transport.plain import PlainAppender, PlainLink
from tests.integration.transport import contract

LINKS: dict[str, Callable[[str], Link]] = {
    "multiplexed": Multiplexed,
    "plain": lambda url: PlainLink(aioredis.Redis.from_url(url)),
}
APPENDERS: dict[str, Callable[[redis.Redis, str], Appender]] = {
    "pipelined": ScriptPipeline,
    "plain": PlainAppender,
}


@pytest.mark.parametrize("kind", LINKS)
def test_calls_come_back_in_order_and_errors_in_their_place(
    kind: str, redis_url: str, redis_client: redis.Redis
) -> None:
    contract.calls_come_back_in_order_and_errors_in_their_place(lambda: LINKS[kind](redis_url))


@pytest.mark.parametrize("kind", LINKS)
def test_a_submit_appends_to_the_inbox_and_answers_an_earlier_result(
    kind: str, redis_url: str, redis_client: redis.Redis
) -> None:
    contract.a_submit_appends_to_the_inbox_and_answers_an_earlier_result(
        lambda: LINKS[kind](redis_url), redis_client
    )


@pytest.mark.parametrize("kind", APPENDERS)
def test_batches_written_ahead_come_back_in_order(kind: str, redis_client: redis.Redis) -> None:
    contract.batches_written_ahead_come_back_in_order(lambda script: APPENDERS[kind](redis_client, script))


@pytest.mark.parametrize("kind", APPENDERS)
def test_an_error_reply_is_its_exception_in_its_place(kind: str, redis_client: redis.Redis) -> None:
    contract.an_error_reply_is_its_exception_in_its_place(
        lambda script: APPENDERS[kind](redis_client, script)
    )


@pytest.mark.parametrize("kind", APPENDERS)
def test_a_lost_script_cache_is_answered_then_loaded_again(kind: str, redis_client: redis.Redis) -> None:
    contract.a_lost_script_cache_is_answered_then_loaded_again(
        lambda script: APPENDERS[kind](redis_client, script), redis_client.script_flush
    )
