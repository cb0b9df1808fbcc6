"""Issue 31, findings 2 and 9: every socket's frames have a budget (``FrameBudget``), read by a counter of
frames by their headers across any reads (``FrameCounter``). A frame over the real stack is in
``tests/integration/gateway/test_client_frames.py``."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from services.gateway.access.limits import FrameBudget
from services.gateway.sockets.protocol import FrameCounter
from tests.support.frames import client_frame


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_frame_budget_allows_its_burst_then_its_rate() -> None:
    clock = Clock()
    budget = FrameBudget(10, 5, clock)
    assert all(budget.take() for _ in range(50))  # a burst of rate x burst seconds
    assert not budget.take()
    clock.now += 0.5
    assert [budget.take() for _ in range(6)] == [True] * 5 + [False]  # then 10 a second
    clock.now += 3600
    assert sum(budget.take() for _ in range(100)) == 50  # a quiet hour saves no more than the burst
    clock.now += 1
    assert not budget.take(11) and budget.take(10)  # a read's frames at once: all within it, or refused


@st.composite
def split_frames(draw: st.DrawFn) -> tuple[int, list[bytes]]:
    """Client frames of every header shape (7-, 16- and 64-bit lengths, masked or not, any opcode), one
    after another, cut into reads at arbitrary places."""
    sizes = draw(st.lists(st.sampled_from([0, 1, 125, 126, 300, 65535, 65536, 70000]), max_size=8))
    stream = b"".join(
        client_frame(b"x" * size, opcode=draw(st.sampled_from([0x0, 0x1, 0x2, 0x8, 0x9, 0xA])),
                     fin=draw(st.booleans()), masked=draw(st.booleans()))
        for size in sizes
    )  # fmt: skip
    cuts = sorted(draw(st.lists(st.integers(0, len(stream)), max_size=12)))
    return len(sizes), [stream[a:b] for a, b in zip([0, *cuts], [*cuts, len(stream)], strict=True)]


@given(split_frames())
@settings(max_examples=300, deadline=None)
def test_the_frame_counter_counts_frames_by_their_headers_across_any_reads(
    case: tuple[int, list[bytes]],
) -> None:
    frames, reads = case
    counter = FrameCounter()
    assert sum(counter.count(read) for read in reads) == frames
    assert counter.skip == 0 and counter.head == b""  # at a frame boundary again, as the parser is
