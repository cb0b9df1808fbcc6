"""Result fields written before command ids were scoped to their sender are renamed, on a real Redis."""

from __future__ import annotations

from events import codec, keys
from events.envelope import CommandRecord
from events.migrate import DONE, scope_all, scope_result_fields
from events.store import AppendItem
from tests.support.pipeline import services_for


def _old_record(command_id: str, seat: int | None, at_seq: int) -> bytes:
    return codec.encode_record(
        CommandRecord(
            command_id=command_id, seat=seat, command=b"{}", status="rejected", at_seq=at_seq, code="x"
        )
    )


def test_old_result_fields_get_their_sender_and_still_answer_a_repeat(redis_url, redis_client) -> None:
    services = services_for(redis_url)
    meta = services.store.create("race", "g1", 2, {}, b"s" * 32, bots={1: "random"})
    results = keys.results("g1")
    new_setup = next(f for f in redis_client.hkeys(results) if f.startswith(b"server/"))
    redis_client.hdel(results, new_setup)  # as an older version wrote them: bare ids
    old = {"setup": _old_record("setup", None, 0), "c1": _old_record("c1", 0, 1)}
    old["bot-4-1"] = _old_record("bot-4-1", 1, 4)
    old["bot-5-0"] = _old_record("bot-5-0", 0, 5)  # seat 0 is a player's: a player's id, whatever it says
    redis_client.hset(results, mapping=old)
    assert scope_result_fields(redis_client, "g1") == 4
    fields = {f.decode() for f in redis_client.hkeys(results)}
    assert fields == {"@position", "server/setup", "seat0/c1", "bot1/bot-4-1", "seat0/bot-5-0"}
    assert scope_result_fields(redis_client, "g1") == 0
    repeat = CommandRecord(
        command_id="c1", seat=0, command=b"{}", status="rejected", at_seq=meta.last_seq, code="x"
    )
    result = services.store.append("g1", AppendItem(record=repeat, envelopes=(), at_hash=meta.last_hash))
    assert result.status == "dup" and result.record is not None and result.record.at_seq == 1


def test_every_game_is_migrated_once(redis_url, redis_client) -> None:
    services = services_for(redis_url)
    for game_id in ("a", "b"):
        services.store.create("race", game_id, 2, {}, b"s" * 32)
        redis_client.hset(keys.results(game_id), "old", _old_record("old", 1, 1))
    assert scope_all(redis_client) == 2
    assert redis_client.exists(DONE)
    redis_client.hset(keys.results("a"), "later", _old_record("later", 1, 1))
    assert scope_all(redis_client) == 0  # marked done: serve does not scan every game at each start
