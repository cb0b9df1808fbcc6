"""One body for the inbox ``XADD`` (issue 46, item 3): a command put on the inbox by the bus's pipeline
(``CommandBus.submit_many``, bots and tools), by a link's calls (``resp.submit_calls``: the plain link, a
fast link not yet connected, a Cluster) and by the fast link's packed bytes (``resp.packed_submit``) is the
same stream entry, read back with ``XRANGE`` from a real Redis, and the fold worker's read takes each."""

from __future__ import annotations

import asyncio
from typing import Any

import redis
import redis.asyncio as aioredis

from events import codec, keys
from events.bus import CommandBus
from events.transport.interface import Link
from events.transport.multiplexed import Multiplexed
from events.transport.plain import PlainLink
from events.transport.resp import INBOX_FIELD, inbox_append
from tests.integration.transport.contract import submitted

PARTITIONS = 4
GAME = "inbox-one-body"


async def _submit(link: Link, field: bytes, message: bytes, connect_first: bool) -> list[Any]:
    if connect_first and isinstance(link, Multiplexed):
        await link.connect()  # connected, the fast link sends ``packed_submit``'s bytes
    try:
        replies = await submitted(link, GAME, field, message, PARTITIONS)
    finally:
        await link.close()
    assert replies[0] is None
    return replies


def test_every_way_onto_the_inbox_writes_the_same_entry(redis_url: str, redis_client: redis.Redis) -> None:
    bus = CommandBus(redis_client, partitions=PARTITIONS)
    bus.ensure_groups()
    message = bus.message(GAME, 1, b'{"type":"pass"}', "c1")
    encoded = codec.encode_inbox(message)
    field = keys.result_field("seat", 1, "c1").encode()

    bus.submit_many([message])  # redis-py's pipeline

    async def links() -> list[list[Any]]:
        return [
            await _submit(PlainLink(aioredis.Redis.from_url(redis_url)), field, encoded, False),
            await _submit(Multiplexed(redis_url), field, encoded, False),  # not connected: submit_calls
            await _submit(Multiplexed(redis_url), field, encoded, True),  # connected: packed_submit
        ]

    submits = asyncio.run(links())
    stream = inbox_append(keys.partition_for(GAME, PARTITIONS), b"")[1]
    entries = redis_client.xrange(stream) or []
    assert len(entries) == 4
    assert [fields for _, fields in entries] == [{INBOX_FIELD: encoded}] * 4
    assert [entry_id for entry_id, _ in entries[1:]] == [replies[1] for replies in submits]
    read = bus.read("w", [keys.partition_for(GAME, PARTITIONS)], 10, None)
    assert [codec.decode_inbox(entry.raw) for entry in read] == [message] * 4
