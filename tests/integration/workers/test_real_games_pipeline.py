"""Every hosted game through the real pipeline: bus, fold worker, Redis; then export and offline verify."""

from __future__ import annotations

import pytest

from domain import GAMES
from domain.engine import Rng
from events import codec
from services.audit.verify import verify_lines
from services.export import export_lines
from tests.conftest import TEST_GAMES
from tests.support.pipeline import services_for
from workers.fold import FoldWorker


@pytest.mark.parametrize("key", sorted(GAMES))
def test_a_whole_random_game_through_the_bus_verifies_offline(key, redis_url, redis_client) -> None:
    services = services_for(redis_url)
    game = GAMES[key]
    seats = min(game.max_seats, max(game.min_seats, 3))
    services.store.create(key, "real", seats, {}, b"s" * 32)
    worker = FoldWorker(services.redis, services.store, services.bus, block_ms=10)
    picker = Rng(b"p" * 32)
    for _ in range(20_000):
        loaded = worker.cache.get("real") or services.store.load("real")
        if game.outcome(loaded.state) is not None:
            break
        seat = picker.choice(sorted(game.to_act(loaded.state)))
        command = picker.choice(game.legal_commands(loaded.state, seat))
        services.bus.submit("real", seat, codec.encode_command(command))
        worker.process(services.bus.read(worker.worker_id, _owned(worker), 10, 1000))
    assert services.store.meta("real").status == "finished"
    records = services.store.records("real")
    assert all(r.status == "applied" for r in records), [(r.code, r.message) for r in records if r.code]
    lines = list(export_lines(services.store, "real"))
    report = verify_lines(lines, TEST_GAMES)
    assert report.ok, report.problems
    assert report.decisions_checked
    _assert_a_changed_payload_byte_is_named(lines, seq=len(lines) // 3)


def _assert_a_changed_payload_byte_is_named(lines: list[bytes], seq: int) -> None:
    import msgspec

    from services.audit.jsonl import LINE_DECODER

    index = next(i for i, line in enumerate(lines) if f'"seq":{seq},'.encode() in line)
    line = LINE_DECODER.decode(lines[index])
    payload = bytearray(line.payload)
    payload[len(payload) // 2] ^= 0x01
    lines = [
        *lines[:index],
        msgspec.json.encode(msgspec.structs.replace(line, payload=bytes(payload))),
        *lines[index + 1 :],
    ]
    report = verify_lines(lines, TEST_GAMES)
    assert not report.ok and report.first_problem().seq == seq


def _owned(worker: FoldWorker) -> list[int]:
    worker.bus.ensure_groups()
    if not worker.leases.owned:
        worker.leases.heartbeat()
    return sorted(worker.leases.owned)
