"""The two append layouts the bench compares make the same checks, so that their costs compare like with like."""

from __future__ import annotations

import pytest
import redis

from tests.bench import bench_append_layouts as layouts


def test_the_shared_index_layout_refuses_a_stale_position_and_a_repeated_command_id(
    redis_client: redis.Redis,
) -> None:
    layouts._set_up(redis_client)
    sha = redis_client.script_load(layouts.SHARED_INDEX_LUA)
    seqs = [0] * layouts.GAMES

    first = redis_client.execute_command(*layouts.shared_index_call(sha, [0, 1], seqs, 0))
    again = redis_client.execute_command(*layouts.shared_index_call(sha, [0], seqs, 0))  # same id, seq 0
    stale = redis_client.execute_command(*layouts.shared_index_call(sha, [1], seqs, 7))  # new id, seq 0

    assert first == [[b"ok", 1, 1], [b"ok", 1, 1]]
    assert again == [[b"dup", layouts.RECORD]]
    assert stale == [[b"conflict"]]
    assert redis_client.xlen(layouts._game_keys(1)[0]) == 1


@pytest.mark.parametrize("layout", layouts.LAYOUTS)
def test_every_command_of_the_measured_batches_is_appended(
    redis_client: redis.Redis, monkeypatch: pytest.MonkeyPatch, layout: str
) -> None:
    monkeypatch.setattr(layouts, "BATCHES", 12)

    assert layouts.redis_cpu_a_command(redis_client, layout) > 0
    appended = sum(redis_client.xlen(layouts._game_keys(game)[0]) for game in range(layouts.GAMES))
    assert appended == 12 * layouts.BATCH
