"""Each clock timeout in a game's log checked as the clock would have claimed it (issue 41.3), offline.

The log counts a command as a timeout of its seat by its id alone (``events/clocks.seat_clocks``): a seat
timed out is absent, forfeited or unrated. So a command under a ``timeout-`` id is accepted only if

1. its origin is ``clock`` (recorded by the fold worker from the inbox, where no client can set it), and
   every event it caused carries its id;
2. its id is the clock's shape, ``timeout-<seq>-<seat>-<tag>``, for its own seat, decided no earlier than
   ``seq``, and the tag is the HMAC the clock keys with the game's secret seed. The seed is revealed with
   the game's last event, so anyone can check the tag of a finished game, nobody a live one's;
3. its command is the documented default move (``domain/clock.default_move``, pure) of that seat in the
   state at ``seq``, where the clock chose it;
4. with a limit recorded (a tournament's clock settings): the time the log shows passing from the event at
   ``seq`` to the timeout's first event made the seat out of time (``Clock.out_of_time``, the very rule
   that claimed it). A game outside a tournament records no limit: only the order of the times is checked.

What the clock did to a seat after its timeout (``TimeOutSeat``, id ``clock-…``: handed to a bot, dropped,
a vote opened) is checked to come from the clock (``seat_commands_of_the_clock``); it is decided again like
every command, its events (``SeatHandedToBot``, ``SeatDropped``, ``EndVoteOpened``) refolded.

Checks 1-3 rest on the log and the rules alone; 4 on the events' times, which the operator writes: they are
bound only by a checkpoint or a receipt taken while the game was played.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import msgspec

from domain.clock import default_move
from domain.engine import Game
from domain.seat_control import CLOCK_ONLY
from events import codec
from events.clocks import Clock, seat_clocks
from events.command_ids import is_seat_clock_id, is_timeout_id, parse_timeout_id, timeout_tag
from events.envelope import Envelope
from services.audit.jsonl import CommandLine

Found = tuple[int, str]
"""A problem: the seq it is at, and what is wrong."""


def timeouts(commands: list[CommandLine]) -> Iterator[CommandLine]:
    """The applied commands the log would count as timeouts, or that say they came from the clock."""
    for record in commands:
        by_clock = record.origin == "clock" and not is_seat_clock_id(record.command_id)
        if record.status == "applied" and (is_timeout_id(record.command_id) or by_clock):
            yield record


def seat_commands_of_the_clock(commands: list[CommandLine]) -> list[Found]:
    """What the clock did to a seat (``TimeOutSeat``: handed to a bot, dropped, a vote opened) is the
    clock's alone: sent by it under its ``clock-`` id; anything else under that id or type is refused."""
    found: list[Found] = []
    for record in commands:
        if record.status != "applied":
            continue
        kind = _command_type(record.command)
        clocks = kind in CLOCK_ONLY or is_seat_clock_id(record.command_id)
        if clocks and (kind not in CLOCK_ONLY or record.origin != "clock"):
            found.append((record.first_seq, f"command {record.command_id!r} ({kind}) from {record.origin}: "
                          "only the clock sends TimeOutSeat, under its clock- id"))  # fmt: skip
    return found


def _command_type(command: str) -> str:
    try:
        decoded = msgspec.json.decode(command)
    except msgspec.DecodeError:
        return ""
    return str(decoded.get("type", "")) if isinstance(decoded, dict) else ""


def check_timeouts(
    game: Game[Any, Any, Any, Any],
    seed: bytes | None,
    envelopes: list[Envelope],
    states: list[Any],
    commands: list[CommandLine],
) -> list[Found]:
    """Checks 1-3 of every timeout (the tag only with ``seed``); also that every command's events carry its
    id, since the id on the events is what the clocks are read from."""
    found = [problem for record in commands for problem in _ids_on_events(record, envelopes)]
    found += seat_commands_of_the_clock(commands)
    for record in timeouts(commands):
        problem = _check_one(game, seed, states, record)
        if problem is not None:
            found.append((record.first_seq, f"timeout {record.command_id!r}: {problem}"))
    return found


def _ids_on_events(record: CommandLine, envelopes: list[Envelope]) -> Iterator[Found]:
    if record.status != "applied":
        return
    for envelope in envelopes[record.first_seq - 1 : record.last_seq]:
        if (envelope.command_id, envelope.seat) != (record.command_id, record.seat):
            yield (
                envelope.seq,
                (
                    f"event {envelope.seq} carries id {envelope.command_id!r} of seat {envelope.seat}, "
                    f"but command {record.command_id!r} of seat {record.seat} caused it"
                ),
            )
            return


def _check_one(
    game: Game[Any, Any, Any, Any], seed: bytes | None, states: list[Any], record: CommandLine
) -> str | None:
    if record.origin != "clock":
        return f"sent by {record.origin}, not the clock: only the clock's commands are timeouts"
    parsed = parse_timeout_id(record.command_id)
    if parsed is None:
        return "not an id the clock makes (timeout-<seq>-<seat>-<tag>)"
    seq, seat, tag = parsed
    if seat != record.seat or not 1 <= seq <= record.at_seq:
        return (
            f"its id names seat {seat} at seq {seq}; it is seat {record.seat}'s, decided at {record.at_seq}"
        )
    if seed is not None and tag != timeout_tag(seed, seq, seat):
        return "its tag is not keyed with the game's seed: the clock did not make it"
    try:
        command = codec.decode_command(game, record.command.encode())
    except (msgspec.DecodeError, msgspec.ValidationError):
        return "its command is not one of the game's"
    expected = default_move(game, states[seq], seat)
    if command != expected:
        return f"it plays {record.command}, not the default move {_shown(expected)}"
    return None


def overdue(envelopes: list[Envelope], commands: list[CommandLine], clock: Clock | None) -> list[Found]:
    """Check 4: each timeout came when its seat was out of time under ``clock`` (``None``: no limit was
    recorded; then only that no timeout is dated before the position it was claimed at)."""
    found: list[Found] = []
    for record in timeouts(commands):
        parsed = parse_timeout_id(record.command_id)
        if parsed is None or not 1 <= parsed[0] < record.first_seq <= len(envelopes):
            continue  # reported by check_timeouts
        seq, seat, _ = parsed
        before = seat_clocks(envelopes[:seq])  # the seat thought from its last event, a vote's aside
        elapsed = envelopes[record.first_seq - 1].ts_ms - (before.last_ts_ms or envelopes[seq - 1].ts_ms)
        if elapsed < 0 or (clock is not None and not clock.out_of_time(before, seat, elapsed)):
            found.append((record.first_seq, f"timeout {record.command_id!r}: seat {seat} had been to act "
                          f"{elapsed} ms, within its clock ({_limits(clock)})"))  # fmt: skip
    return found


def _limits(clock: Clock | None) -> str:
    if clock is None:
        return "no limit recorded"
    return ", ".join(f"{name} {value}" for name, value in msgspec.structs.asdict(clock).items())


def _shown(command: Any) -> str:
    return "none" if command is None else codec.encode_command(command).decode()
