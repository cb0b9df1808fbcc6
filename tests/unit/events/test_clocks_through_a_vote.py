"""A vote to end (issue 44) does not restart a clock: the seat to act goes on thinking while the others vote,
so ``seat_clocks`` reads its time from the event before the vote's, the clock claims its timeout by that
time, and ``verify``'s check that a timeout was due (``services/audit/timeouts.overdue``) agrees. Before,
each vote event restarted the clock of the seat to act and took the time before it off its bill."""

from __future__ import annotations

from events.clocks import Clock, seat_clocks
from events.command_ids import timeout_command_id
from events.envelope import Envelope
from services.audit.jsonl import CommandLine
from services.audit.timeouts import overdue

SEED = b"s" * 32


def _envelope(seq: int, kind: str, command_id: str, seat: int | None, ts: int) -> Envelope:
    return Envelope(game_id="g", seq=seq, type=kind, version=1, payload=b"", command_id=command_id, seat=seat,
                    ts_ms=ts, prev_hash="", hash="")  # fmt: skip


# Ann (seat 0) timed out at 2 s: a bot plays her seat and Bob and Eve vote. Eve (seat 2) is to act from 2 s;
# Bob votes at 4 s and 6 s passes with the vote still open.
VOTE = [
    _envelope(1, "Started", "setup", None, 1_000),
    _envelope(2, "Moved", "timeout-1-0-x", 0, 2_000),
    _envelope(3, "SeatHandedToBot", "clock-2-0", 0, 2_000),
    _envelope(4, "EndVoteOpened", "clock-2-0", 0, 2_000),
    _envelope(5, "EndVoteCast", "vote-bob", 1, 4_000),
]


def test_a_vote_cast_leaves_the_clock_of_the_seat_to_act_running_from_before_it() -> None:
    clocks = seat_clocks(VOTE)
    assert clocks.seq == 5 and clocks.last_ts_ms == 2_000  # not 4_000: Eve thinks from 2 s on
    closed = seat_clocks([*VOTE, _envelope(6, "EndVoteClosed", "vote-eve", 2, 5_000)])
    assert closed.last_ts_ms == 2_000
    moved = seat_clocks([*VOTE, _envelope(6, "Moved", "eve-1", 2, 9_000)])
    assert moved.used_ms[2] == 7_000  # charged from 2 s, the vote's 2 s included
    assert Clock(move_ms=5_000).out_of_time(clocks, 2, 7_500 - clocks.last_ts_ms)


def test_a_taken_back_seat_thinks_from_its_taking_back() -> None:
    back = seat_clocks([*VOTE[:4], _envelope(5, "SeatTakenBack", "take-back-ann", 0, 4_000)])
    assert back.last_ts_ms == 4_000 and 0 not in back.away  # "their clock runs again from there"


def test_verify_finds_a_timeout_after_a_vote_due_by_the_time_before_it() -> None:
    """Eve's timeout claimed at 7.5 s, after Bob's vote at 4 s: 5.5 s of a 5 s move, due."""
    claim = timeout_command_id(SEED, 5, 2)
    log = [*VOTE, _envelope(6, "Moved", claim, 2, 7_500)]
    record = CommandLine(command_id=claim, seat=2, command="{}", status="applied", at_seq=5, first_seq=6,
                         last_seq=6, origin="clock")  # fmt: skip
    assert overdue(log, [record], Clock(move_ms=5_000)) == []
    early = [*VOTE, _envelope(6, "Moved", claim, 2, 6_500)]  # 4.5 s: within the move's 5 s
    assert [seq for seq, _ in overdue(early, [record], Clock(move_ms=5_000))] == [6]
