"""Frames framed once for many sockets are the frames websockets itself would send (RFC 6455 5.2)."""

from __future__ import annotations

import pytest
from websockets.frames import Frame, Opcode
from websockets.streams import StreamReader

from services.gateway.sockets.socket_writer import text_frame


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
