"""Frames framed once for many sockets are the frames websockets itself would send (RFC 6455 5.2)."""

from __future__ import annotations

import asyncio

import pytest
from websockets.frames import Frame, Opcode
from websockets.streams import StreamReader

from services.gateway.sockets.protocol import Flag
from services.gateway.wire.framing import text_frame


@pytest.mark.parametrize("size", [0, 125, 126, 65535, 65536, 200_000])
def test_a_text_frame_of_every_length_class_parses_back(size: int) -> None:
    payload = ("é" * size).encode()[:size]
    reader = StreamReader()
    reader.feed_data(text_frame(payload))
    parser = Frame.parse(reader.read_exact, mask=False)
    try:
        next(parser)
        raise AssertionError("the frame is incomplete")
    except StopIteration as done:
        frame = done.value
    assert frame.opcode == Opcode.TEXT and frame.fin and frame.data == payload
    assert text_frame(payload) == Frame(Opcode.TEXT, payload).serialize(mask=False)


def test_a_flag_set_while_a_writer_waits_on_it_wakes_the_writer() -> None:
    """uvicorn waits on the flag while a socket's writes are paused, and ``set`` empties its waiters
    meanwhile. Compiled, a wait that narrowed its waiters' list past the ``await`` raised 'list object
    expected; got None' here, and the slow reader's socket was closed when it caught up."""

    async def scenario() -> list[bool]:
        flag = Flag()
        waiting = [asyncio.create_task(flag.wait()) for _ in range(2)]
        await asyncio.sleep(0)
        flag.set()
        return await asyncio.wait_for(asyncio.gather(*waiting), 1)

    assert asyncio.run(scenario()) == [True, True]
