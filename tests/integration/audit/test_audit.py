"""Export and offline verify: a clean game verifies; a flipped byte or a deleted event names its seq."""

from __future__ import annotations

import msgspec

from events import codec, keys
from services.audit.jsonl import LINE_DECODER
from services.audit.verify import verify_lines
from services.export import export_lines
from tests.conftest import TEST_GAMES
from tests.support.pipeline import new_race, services_for
from workers.fold import FoldWorker

ROLL = b'{"type":"Roll"}'


def _finished_game(services, game_id: str = "g1") -> None:
    new_race(services, game_id, seats=2, goal=25)
    worker = FoldWorker(services.redis, services.store, services.bus, block_ms=20)
    seat = 0
    while services.store.meta(game_id).status != "finished":
        services.bus.submit(game_id, seat, ROLL)
        services.bus.submit(game_id, 1 - seat, b'{"type":"Note","text":"gg"}')
        services.bus.submit(
            game_id, 1 - seat, ROLL
        )  # out of turn while the first is pending: rejected or not
        worker.run(until_idle=True)
        loaded = services.store.load(game_id)
        seat = loaded.state.turn
    services.bus.submit(game_id, seat, ROLL)  # after the end: recorded as rejected, so verify re-checks one
    worker.run(until_idle=True)


def _export(services, game_id: str = "g1") -> list[bytes]:
    return list(export_lines(services.store, game_id))


def test_an_untouched_finished_game_verifies_every_decision(redis_url, redis_client) -> None:
    services = services_for(redis_url)
    _finished_game(services)
    report = verify_lines(_export(services), TEST_GAMES)
    assert report.ok, report.problems
    assert report.decisions_checked
    assert any(r.status == "rejected" for r in services.store.records("g1"))


def test_a_live_game_verifies_its_chain_and_replay_without_the_seed(redis_url, redis_client) -> None:
    services = services_for(redis_url)
    new_race(services, "g1", seats=2)
    services.bus.submit("g1", 0, ROLL)
    FoldWorker(services.redis, services.store, services.bus, block_ms=20).run(until_idle=True)
    report = verify_lines(_export(services), TEST_GAMES)
    assert report.ok and not report.decisions_checked


def _stored_entries(services, game_id: str):
    return services.redis.xrange(keys.events(game_id))


def _rewrite_stream(services, game_id: str, change) -> None:
    """Rewrite a game's stored events entry by entry, as someone with write access to Redis could."""
    entries = services.redis.xrange(keys.events(game_id))
    services.redis.delete(keys.events(game_id))
    for entry_id, fields in entries:
        raw = change(int(entry_id.split(b"-")[0]), fields[b"e"])
        services.redis.xadd(keys.events(game_id), {**fields, b"e": raw}, id=entry_id)


def test_flipping_one_byte_of_a_stored_event_fails_verify_at_its_seq(redis_url, redis_client) -> None:
    services = services_for(redis_url)
    _finished_game(services)

    def flip_a_payload_byte(seq: int, raw: bytes) -> bytes:
        if seq != 5:
            return raw
        envelope = codec.decode_envelope(raw)
        at = raw.index(envelope.payload) + len(envelope.payload) - 1
        return raw[:at] + bytes([raw[at] ^ 0x01]) + raw[at + 1 :]

    _rewrite_stream(services, "g1", flip_a_payload_byte)
    report = verify_lines(_export(services), TEST_GAMES)
    assert not report.ok and report.first_problem().seq == 5


def test_flipping_any_byte_even_an_envelope_byte_is_caught(redis_url, redis_client) -> None:
    services = services_for(redis_url)
    _finished_game(services)
    _rewrite_stream(services, "g1", lambda seq, raw: raw[:-1] + bytes([raw[-1] ^ 0x40]) if seq == 3 else raw)
    report = verify_lines(_export(services), TEST_GAMES)
    assert not report.ok and report.first_problem().seq == 3


def test_flipping_a_byte_in_the_exported_file_fails_verify_at_its_seq(redis_url, redis_client) -> None:
    services = services_for(redis_url)
    _finished_game(services)
    lines = _export(services)
    index = next(i for i, line in enumerate(lines) if b'"seq":6,' in line)
    line = LINE_DECODER.decode(lines[index])
    payload = bytearray(line.payload)
    payload[-1] ^= 0x01
    lines[index] = msgspec.json.encode(msgspec.structs.replace(line, payload=bytes(payload)))
    report = verify_lines(lines, TEST_GAMES)
    assert not report.ok and report.first_problem().seq == 6


def test_deleting_one_stored_event_fails_verify_at_its_seq(redis_url, redis_client) -> None:
    services = services_for(redis_url)
    _finished_game(services)
    entry_id, _ = _stored_entries(services, "g1")[6]
    services.redis.xdel(keys.events("g1"), entry_id)
    report = verify_lines(_export(services), TEST_GAMES)
    assert not report.ok and report.first_problem().seq == 7
    assert "missing" in report.first_problem().reason


def test_a_changed_seed_commitment_fails_verify(redis_url, redis_client) -> None:
    services = services_for(redis_url)
    _finished_game(services)
    lines = _export(services)
    header = LINE_DECODER.decode(lines[0])
    lines[0] = msgspec.json.encode(msgspec.structs.replace(header, seed_commitment="0" * 64))
    report = verify_lines(lines, TEST_GAMES)
    assert not report.ok


def _kinds(lines: list[bytes]) -> list[str]:
    return [msgspec.json.decode(line)["kind"] for line in lines]


def test_an_export_ends_with_a_line_stating_how_far_it_reaches(redis_url, redis_client) -> None:
    services = services_for(redis_url)
    _finished_game(services)
    lines = _export(services)
    end = msgspec.json.decode(lines[-1])
    meta = services.store.meta("g1")
    assert _kinds(lines).count("end") == 1 and end["kind"] == "end"
    assert (end["last_seq"], end["last_hash"], end["finished"]) == (meta.last_seq, meta.last_hash, True)
    assert (end["events"], end["commands"]) == (_kinds(lines).count("event"), _kinds(lines).count("command"))


def test_an_export_with_its_last_events_cut_off_fails_verify(redis_url, redis_client) -> None:
    """The finding: the last events cut off (20 there, 10 of this shorter game), the records kept: they
    point past the last event."""
    services = services_for(redis_url)
    _finished_game(services)
    lines = _export(services)
    events = [n for n, kind in enumerate(_kinds(lines)) if kind == "event"]
    assert len(events) > 12
    cut = [line for n, line in enumerate(lines) if n not in events[-10:]]
    last = len(events) - 10
    for truncated in (cut, cut[:-1]):  # with its end line, and without
        report = verify_lines(truncated, TEST_GAMES)
        assert not report.ok and report.first_problem().seq == last + 1, report.problems
        assert any("points past the last event" in p.reason for p in report.problems)
    assert "events are missing" in verify_lines(cut, TEST_GAMES).first_problem().reason
    assert "no end line" in verify_lines(cut[:-1], TEST_GAMES).first_problem().reason


def test_an_export_cut_at_any_line_fails_verify(redis_url, redis_client) -> None:
    services = services_for(redis_url)
    _finished_game(services)
    lines = _export(services)
    for keep in (len(lines) - 1, len(lines) - 2, len(lines) // 2, 2):
        report = verify_lines(lines[:keep], TEST_GAMES)
        assert not report.ok, keep
    half_a_line = [*lines[:-1], lines[-1][: len(lines[-1]) // 2]]
    assert not verify_lines(half_a_line, TEST_GAMES).ok


def test_a_live_game_verifies_up_to_its_last_event(redis_url, redis_client) -> None:
    services = services_for(redis_url)
    new_race(services, "g1", seats=2)
    services.bus.submit("g1", 0, ROLL)
    services.bus.submit("g1", 0, ROLL)  # out of turn: a rejection, decided at seq 2
    FoldWorker(services.redis, services.store, services.bus, block_ms=20).run(until_idle=True)
    report = verify_lines(_export(services), TEST_GAMES)
    assert report.ok, report.problems
    assert (report.finished, report.last_seq, report.commands) == (False, 2, 3)


def test_an_export_is_of_the_position_it_started_at_while_the_game_moves_on(redis_url, redis_client) -> None:
    services = services_for(redis_url)
    new_race(services, "g1", seats=2)
    worker = FoldWorker(services.redis, services.store, services.bus, block_ms=20)
    services.bus.submit("g1", 0, ROLL)
    worker.run(until_idle=True)
    lines = export_lines(services.store, "g1")
    first = [next(lines)]  # the position is read: the export is of seq 2
    for seat in (1, 1, 0):  # applied, rejected (out of turn), applied: all after the export's position
        services.bus.submit("g1", seat, ROLL)
        worker.run(until_idle=True)
    exported = first + list(lines)
    report = verify_lines(exported, TEST_GAMES)
    assert report.ok, report.problems
    assert (report.last_seq, report.events, report.commands) == (2, 2, 2)
    assert services.store.meta("g1").last_seq == 4
