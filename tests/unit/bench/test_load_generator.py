"""The latency bench's load generator: messages encoded before the clock starts, stamped as each tick is
sent, and the CPU meter that reads what the sending cost (its count on a real Redis is in
``tests/integration/bench/test_load_generator_cpu.py``)."""

from __future__ import annotations

import os

import hiredis

from events import codec, keys
from events.keys import partition_for
from events.transport.pipelined import Pipelined
from tests.bench.load_generator import (
    GAMES,
    PARTITIONS,
    PLACEHOLDER_MS,
    _packed_ticks,
    _process_cpu_seconds,
    _stamped,
)


def commands_in(packed: bytes) -> list[list[bytes]]:
    """The Redis commands packed in ``packed`` (the protocol of a command is that of an array reply)."""
    reader = hiredis.Reader()
    reader.feed(packed)
    commands = []
    while (command := reader.gets()) is not False:
        commands.append(command)
    return commands


def test_a_tick_is_packed_ahead_and_stamped_with_the_time_it_is_sent() -> None:
    ticks = _packed_ticks(Pipelined(None), per_tick=3, ticks=2)  # type: ignore[arg-type]  # packing needs no connection

    sent = commands_in(_stamped(ticks[1], 1_763_950_000_123))

    messages = [codec.decode_inbox(command[4]) for command in sent]
    assert [m.command_id for m in messages] == [f"lat-{n}" for n in (GAMES + 3, GAMES + 4, GAMES + 5)]
    assert {m.submitted_ms for m in messages} == {1_763_950_000_123}
    assert [command[1].decode() for command in sent] == [
        keys.inbox(partition_for(m.game_id, PARTITIONS)) for m in messages
    ]
    assert all(command[:4:2] == [b"XADD", b"*"] for command in sent)


def test_an_unstamped_tick_carries_only_the_placeholder() -> None:
    (tick,) = _packed_ticks(Pipelined(None), per_tick=2, ticks=1)  # type: ignore[arg-type]

    assert {codec.decode_inbox(command[4]).submitted_ms for command in commands_in(tick)} == {PLACEHOLDER_MS}


def test_a_process_that_is_gone_has_used_no_cpu() -> None:
    assert _process_cpu_seconds(2**22 + 12_345) == 0.0
    assert _process_cpu_seconds(os.getpid()) > 0
