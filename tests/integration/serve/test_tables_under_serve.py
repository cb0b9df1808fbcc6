"""``harbormaster serve``'s own reconciler finishes a table start a killed gateway left half-done, and closes
an open table past its time (issue 43, findings 10 and 16): the wiring of ``services/players/table_start.py``
into serve's periodic pass, on a real serve (the steps themselves: ``tests/integration/players/test_table_half_writes.py``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import redis

from services.players import table_start, tables
from services.players.table_settings import TableSettings
from tests.support.client import wait_until
from tests.support.players_stack import sign_up
from tests.support.serving import running_serve


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[tuple[str, redis.Redis]]:
    with running_serve(tmp_path) as (base, url):
        client = redis.Redis.from_url(url)
        try:
            yield base, client
        finally:
            client.close()


def test_serve_finishes_a_killed_start_and_expires_an_old_table(serve: tuple[str, redis.Redis]) -> None:
    base, client = serve
    ann, bob = sign_up(base, "ann"), sign_up(base, "bob")
    bots = {"game": "manila", "seats": 3, "bots": ["random", "random"]}
    half = ann.post("/api/tables", json=bots).json()["table_id"]
    old = bob.post("/api/tables", json={"game": "manila", "seats": 3}).json()["table_id"]
    ann.post(f"/api/tables/{old}/join")
    raw: dict[bytes, bytes] = client.hgetall(tables.table_key(half))  # type: ignore[assignment]
    table = tables.decoded(half, raw, [b"ann"])
    # What a gateway killed right after its claim leaves: the table starting, a game id chosen, no game.
    stale = tables.now_ms() - table_start.STALE_MS - 1
    claimed = client.eval(*table_start._claim_call(TableSettings(), table, "killedstart1", stale))
    assert int(claimed[0]) == 1
    hour_ago = tables.now_ms() - 61 * 60_000  # bob's table was opened 61 minutes ago
    client.hset(tables.table_key(old), "created_ms", hour_ago)
    client.zadd(tables.OPEN, {old: hour_ago})
    wait_until(lambda: ann.get(f"/api/tables/{half}").json()["status"] == "started", timeout=60)
    assert ann.get(f"/api/tables/{half}").json()["game_id"] == "killedstart1"
    mine = ann.get("/api/me/games").json()["games"]
    assert [(g["game_id"], g["seat"]) for g in mine] == [("killedstart1", 0)]
    assert mine[0]["names"] == ["ann", "Random bot 2", "Random bot 3"]
    wait_until(lambda: bob.get(f"/api/tables/{old}").json()["status"] == "expired", timeout=60)
    assert httpx.get(f"{base}/api/tables").json()["tables"] == []
