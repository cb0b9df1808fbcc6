"""The feeds' one read (``feed_reads.py``): packed once per set of feeds, its cursors where each feed is; its
reply applied in growing slices (``feed_reads.growing_slices``)."""

from __future__ import annotations

import asyncio

import hiredis
import httpx
import redis.asyncio as aioredis
from hypothesis import given
from hypothesis import strategies as st

from events import keys
from services.gateway.feeds.fanout import GameFeed
from services.gateway.feeds.feed_reads import FeedReads, entry_fields, event_fields, growing_slices
from services.gateway.feeds.hub import FeedHub
from tests.support.client import create, post_command
from tests.support.harness import ServerThread
from tests.support.pipeline import services_for


def _loaded(url: str, game_ids: list[str]) -> list[GameFeed]:
    """The games' feeds as a gateway loads them, from the real store."""

    async def load() -> list[GameFeed]:
        client = aioredis.Redis.from_url(url)
        hub = FeedHub(client, url, services_for(url).store.games)
        try:
            return [await hub._load(game_id) for game_id in game_ids]
        finally:
            await client.aclose()

    return asyncio.run(load())


def _expected(feeds: list[GameFeed]) -> bytes:
    streams = [k.encode() for f in feeds for k in (keys.events(f.game_id), keys.commands(f.game_id))]
    cursors = [c for f in feeds for c in (f"{f.seq}-0".encode(), f.commands_cursor)]
    call: tuple[str | int | bytes, ...] = (
        "XREAD",
        "COUNT",
        1000,
        "BLOCK",
        5000,
        "STREAMS",
        *streams,
        *cursors,
    )
    return bytes(hiredis.pack_command(call))  # type: ignore[arg-type]  # hiredis's stub types one argument


def test_the_packed_read_is_the_xread_of_every_feed_from_where_it_is(
    stack: ServerThread, api: httpx.Client, redis_url: str
) -> None:
    games = [create(api, "counter", 2) for _ in range(3)]
    moved = post_command(api, games[1]["game_id"], games[1]["seats"][0]["token"],
                         {"command": {"type": "Move"}, "command_id": "m"}, wait=True)  # fmt: skip
    assert moved.json()["status"] == "applied"
    refused = post_command(api, games[2]["game_id"], games[2]["seats"][1]["token"],
                           {"command": {"type": "Move"}, "command_id": "early"}, wait=True)  # fmt: skip
    assert refused.json()["status"] == "rejected"  # a command log entry: its cursor is not 0-0
    feeds = _loaded(redis_url, [g["game_id"] for g in games])
    assert [f.seq for f in feeds] == [1, 2, 1] and feeds[2].commands_cursor != b"0-0"
    reads = FeedReads(feeds, watched=3, count=1000, block_ms=5000)
    assert reads.command() == _expected(feeds)
    feeds[0].commands_cursor = b"1700000000000-5"  # a cursor that moves is packed anew
    assert reads.command() == _expected(feeds)


def test_the_read_goes_stale_when_a_feed_is_added_rests_or_closes(
    stack: ServerThread, api: httpx.Client, redis_url: str
) -> None:
    feeds = _loaded(redis_url, [create(api, "counter", 2)["game_id"] for _ in range(2)])
    reads = FeedReads(feeds, watched=2, count=1000, block_ms=5000)
    assert reads.current(2) and not reads.current(3)
    feeds[0].resting = True
    assert not reads.current(2)
    feeds[0].resting = False
    assert reads.current(2)
    feeds[1].closed = True
    assert not reads.current(2)


@given(st.integers(min_value=0, max_value=5000), st.integers(min_value=1, max_value=16))
def test_growing_slices_cover_every_item_once_in_order_each_twice_the_one_before(
    length: int, first: int
) -> None:
    slices = growing_slices(length, first)
    assert [i for start, stop in slices for i in range(start, stop)] == list(range(length))
    sizes = [stop - start for start, stop in slices]
    assert sizes[:-1] == [first * 2**n for n in range(len(sizes) - 1)]
    assert not sizes or 0 < sizes[-1] <= first * 2 ** (len(sizes) - 1)
    assert all(start % 2 == 0 for start, _ in growing_slices(2 * length, 2))  # a game's two stay together


@given(
    st.permutations([b"e", b"r", b"t"]),
    st.booleans(),
    st.lists(st.binary(max_size=8), min_size=3, max_size=3),
)
def test_an_event_entry_gives_its_envelope_and_riding_record_in_any_field_order(
    order: list[bytes], with_record: bool, values: list[bytes]
) -> None:
    """Read in place when laid out as the append script writes it (``e``, ``r``, ``t``), else from a dict:
    the same either way."""
    fields = dict(zip(order, values, strict=True))
    if not with_record:
        del fields[b"r"]
    flat = [part for field, value in fields.items() for part in (field, value)]
    assert event_fields(flat) == (fields[b"e"], fields.get(b"r"))
    assert entry_fields(flat) == fields
