"""What the clock does to a seat behind its applied timeout (``workers/jobs/clock.seat_after_timeout``): the
table's choice as a ``TimeOutSeat`` of the clock, once per seat (a dropped seat's later timeouts add none),
with the present accounts as voters (no bot votes), and nothing for a tournament's clock or a move that was
not a timeout. Pure: a game folded by the real rules, no Redis."""

from __future__ import annotations

from typing import Any

import pytest

from domain import GAMES
from domain.engine import decide_at
from domain.seat_control import TimeOutSeat
from events.clocks import SeatClocks
from events.command_ids import timeout_command_id
from events.envelope import GameHeader
from events.store import GameMeta, LoadedGame
from workers.jobs.clock import seat_after_timeout

SEED = b"s" * 32


def loaded(bots: dict[str, str], after: list[tuple[int, Any]] = ()) -> LoadedGame:  # type: ignore[assignment]
    game = GAMES["manila"]
    state, events = game.start(4, {}, SEED)
    for seat, command in after:
        new = decide_at(game, state, seat, command, SEED, len(events))
        state, events = game.fold(new, state), [*events, *new]
    header = GameHeader(game_id="g1", game="manila", seats=4, options={}, seed_commitment="", created_ms=0)
    meta = GameMeta(header=header, seed=SEED, last_seq=len(events), last_hash="", status="live", bots=bots)
    return LoadedGame(game=game, meta=meta, state=state, seq=len(events), hash="")


def timed_out(seat: int, seq: int = 5) -> SeatClocks:
    return SeatClocks(last_command_id=timeout_command_id(SEED, seq, seat))


@pytest.mark.parametrize("then", ["bot", "drop"])
def test_the_tables_choice_follows_a_timeout(then: str) -> None:
    after = seat_after_timeout(loaded({}), timed_out(2), then)
    assert after == (2, TimeOutSeat(then=then), "clock-5-2")  # type: ignore[arg-type]


def test_the_voters_are_the_present_accounts() -> None:
    game = loaded({"3": "greedy"}, after=[(1, TimeOutSeat(then="drop"))])
    after = seat_after_timeout(game, timed_out(0), "vote")
    assert after == (0, TimeOutSeat(then="vote", voters=(2,)), "clock-5-0")


def test_nothing_more_for_an_absent_seat_a_tournament_or_a_move() -> None:
    dropped = loaded({}, after=[(1, TimeOutSeat(then="drop"))])
    assert seat_after_timeout(dropped, timed_out(1), "drop") is None  # its later timeouts: nothing more
    assert seat_after_timeout(loaded({}), timed_out(1), "") is None  # a tournament's clock
    assert seat_after_timeout(loaded({}), SeatClocks(last_command_id="abc"), "bot") is None


def test_the_logs_readers_know_every_seat_event() -> None:
    """``events/clocks.py`` reads seat events by their tags alone: the same set as the domain's."""
    from domain.seat_control import SEAT_EVENT_TYPES as DOMAIN_TYPES
    from events.clocks import SEAT_EVENT_TYPES

    assert SEAT_EVENT_TYPES == DOMAIN_TYPES


def test_verify_takes_the_clocks_seat_command_from_the_clock_alone() -> None:
    """``services/audit/timeouts.seat_commands_of_the_clock``: a TimeOutSeat a player sent, or another command
    under the clock's ``clock-`` id, is a problem of the export; the clock's own is not."""
    from services.audit.jsonl import CommandLine
    from services.audit.timeouts import seat_commands_of_the_clock, timeouts

    def line(command: str, command_id: str, origin: str) -> CommandLine:
        return CommandLine(command_id=command_id, seat=1, command=command, status="applied", at_seq=4,
                           first_seq=5, last_seq=5, origin=origin)  # fmt: skip

    clocks = line('{"type":"TimeOutSeat","then":"bot"}', "clock-4-1", "clock")
    forged = line('{"type":"TimeOutSeat","then":"bot"}', "mine", "seat")
    posing = line('{"type":"Roll"}', "clock-4-1", "clock")
    assert seat_commands_of_the_clock([clocks]) == []
    assert [seq for seq, _ in seat_commands_of_the_clock([forged, posing])] == [5, 5]
    assert list(timeouts([clocks])) == []  # the clock's seat command is no timeout of the seat
