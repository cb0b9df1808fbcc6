"""``Clock.due_after_ms`` (issue 42.6): the least time after the last event at which a seat is out of time,
the moment the clock watcher claims it. It must agree with ``out_of_time`` (the rule the claim and
``verify`` apply) on both sides of it; and ``seat_clocks`` read on from an earlier reading equals a reading
of everything at once (the fold worker's hook reads only the new events)."""

from __future__ import annotations

import itertools

from events.clocks import Clock, SeatClocks, seat_clocks
from events.envelope import Envelope

CLOCKS = [
    Clock(move_ms=5_000),
    Clock(total_ms=60_000),
    Clock(no_show_ms=30_000),
    Clock(move_ms=5_000, total_ms=60_000, no_show_ms=30_000),
    Clock(forfeit=True),
    Clock(move_ms=0),  # a cancelled tournament's: every seat at once
]
SEATS = [
    SeatClocks(),
    SeatClocks(used_ms={0: 58_000}, moved={0}),
    SeatClocks(used_ms={0: 29_000}),
    SeatClocks(used_ms={0: 31_000}, timeouts={0: 1}),
    SeatClocks(used_ms={0: 70_000}, moved={0}),
]


def test_due_is_exactly_when_the_seat_runs_out_of_time() -> None:
    for clock, seats in itertools.product(CLOCKS, SEATS):
        due = clock.due_after_ms(seats, 0)
        if due is None:
            assert not clock.out_of_time(seats, 0, 10**9), (clock, seats)
            continue
        assert clock.out_of_time(seats, 0, due), (clock, seats, due)
        assert due == 0 or not clock.out_of_time(seats, 0, due - 1), (clock, seats, due)


def test_a_no_show_is_due_at_once_on_each_later_turn() -> None:
    assert Clock(no_show_ms=30_000).due_after_ms(SeatClocks(used_ms={0: 31_000}), 0) == 0
    assert Clock(no_show_ms=30_000).due_after_ms(SeatClocks(used_ms={0: 31_000}, moved={0}), 0) is None
    assert Clock().due_after_ms(SeatClocks(), 0) is None


def _envelope(seq: int, command_id: str, seat: int | None, ts: int) -> Envelope:
    return Envelope(game_id="g", seq=seq, type="E", version=1, payload=b"", command_id=command_id, seat=seat,
                    ts_ms=ts, prev_hash="", hash="")  # fmt: skip


def test_reading_on_from_an_earlier_reading_equals_reading_all_at_once() -> None:
    log = [_envelope(1, "setup", None, 1_000), _envelope(2, "a", 0, 3_000), _envelope(3, "a", 0, 3_000),
           _envelope(4, "timeout-3-1-x", 1, 9_000), _envelope(5, "b", 0, 9_500), _envelope(6, "c", 1, 12_000)]  # fmt: skip
    whole = seat_clocks(log)
    for cut in range(len(log) + 1):
        assert seat_clocks(log[cut:], seat_clocks(log[:cut])) == whole, cut
    assert whole.seq == 6 and whole.timeouts == {1: 1} and whole.moved == {0, 1}
