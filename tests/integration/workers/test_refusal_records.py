"""Refused commands cannot fill Redis (issue 31.6): a refusal keeps at most 1 KiB of the command and 500
characters of its message, and its record is forgotten once the game holds 1,000 newer ones or it is an
hour old; an applied command's record is never forgotten. The fold worker runs in-process on real Redis."""

from __future__ import annotations

import msgspec

from events import codec, keys
from events.envelope import CommandRecord
from tests.support.pipeline import new_race, services_for
from workers.fold import FoldWorker
from workers.referee import MAX_COMMAND_BYTES, MAX_REFUSAL_TEXT

KEPT = 1000
"""REFUSALS_KEPT in events/lua/append.lua."""


def _fold(services) -> int:
    return FoldWorker(services.redis, services.store, services.bus, block_ms=20).run(until_idle=True)


def test_a_huge_refused_command_is_stored_cut_short_and_redis_stays_small(redis_url, redis_client) -> None:
    services = services_for(redis_url)
    new_race(services, "g1", seats=2)
    huge = b'{"type":"Roll","note":"' + b"A" * 60_000 + b'"}'
    ids = [services.bus.submit("g1", 1, huge) for _ in range(50)]  # 3 MB of refused commands
    assert _fold(services) == 50
    record = services.store.result("g1", ids[0], 1)
    assert record is not None and record.code == "command.invalid"
    assert record.message == f"a command is at most {MAX_COMMAND_BYTES} bytes, not {len(huge)}"
    assert len(record.command) == MAX_COMMAND_BYTES
    used = sum(redis_client.memory_usage(k) or 0 for k in (keys.results("g1"), keys.commands("g1")))
    assert used < 200_000, used  # two cut copies of each (hash and log), not 6 MB


def test_a_refusal_quoting_a_long_command_keeps_a_bounded_message(redis_url, redis_client) -> None:
    services = services_for(redis_url)
    new_race(services, "g1", seats=2)
    command_id = services.bus.submit(
        "g1", 0, b'{"type":"' + b"F" * 900 + b'"}'
    )  # under the cap, no such type
    _fold(services)
    record = services.store.result("g1", command_id, 0)
    assert record is not None and record.code == "command.invalid"
    assert len(record.message) <= MAX_REFUSAL_TEXT


def test_a_game_keeps_its_newest_thousand_refusals_and_every_applied_record(redis_url, redis_client) -> None:
    services = services_for(redis_url)
    new_race(services, "g1", seats=2)
    refused = [services.bus.submit("g1", 1, b'{"type":"Roll"}') for _ in range(KEPT + 300)]  # seat 0's turn
    applied = services.bus.submit("g1", 0, b'{"type":"Roll"}')
    _fold(services)
    results = redis_client.hgetall(keys.results("g1"))
    statuses = [
        codec.decode_record(r).status for f, r in results.items() if f != keys.POSITION_FIELD.encode()
    ]
    assert statuses.count("rejected") <= KEPT and redis_client.xlen(keys.commands("g1")) <= KEPT
    assert services.store.result("g1", applied, 0) is not None  # an applied record is never forgotten
    assert services.store.result("g1", refused[-1], 1) is not None  # the newest refusals are kept
    assert services.store.result("g1", refused[0], 1) is None  # the oldest forgotten ...
    again = services.bus.submit("g1", 1, b'{"type":"Roll"}', refused[0])
    _fold(services)  # ... so its id is decided again, as a new one: now that it is seat 1's turn, applied
    record = services.store.result("g1", again, 1)
    assert record is not None and record.status == "applied"


def test_a_refusal_an_hour_old_is_forgotten_when_the_next_one_is_recorded(redis_url, redis_client) -> None:
    services = services_for(redis_url)
    new_race(services, "g1", seats=2)
    old = CommandRecord(command_id="old", seat=1, command=b"{}", status="rejected", at_seq=1, code="x")
    kept = CommandRecord(command_id="kept", seat=0, command=b"{}", status="applied", at_seq=1, first_seq=2)
    # As the append script wrote them two hours ago (entry ids are Redis's clock in ms): a refusal, marked,
    # and an applied command with no event, not marked.
    redis_client.xadd(
        keys.commands("g1"), {"id": old.result_field, "r": codec.encode_record(old), "x": "1"}, id="1000-0"
    )
    redis_client.xadd(
        keys.commands("g1"), {"id": kept.result_field, "r": codec.encode_record(kept)}, id="1001-0"
    )
    redis_client.hset(keys.results("g1"), mapping={old.result_field: codec.encode_record(old),
                                                   kept.result_field: codec.encode_record(kept)})  # fmt: skip
    assert services.store.result("g1", "old", 1) is not None
    new = services.bus.submit("g1", 1, b'{"type":"Roll"}')
    _fold(services)
    assert services.store.result("g1", "old", 1) is None
    assert services.store.result("g1", "kept", 0) == kept
    assert services.store.result("g1", new, 1) is not None
    logged = [msgspec.msgpack.decode(f[b"r"], type=CommandRecord).command_id for _, f in redis_client.xrange(keys.commands("g1"))]  # fmt: skip
    assert logged == ["kept", new]
