"""``harbormaster serve``'s own reconciler finishes a table start a killed gateway left half-done, and closes
an open table past its time (issue 43, findings 10 and 16): the wiring of ``services/players/table_start.py``
into serve's periodic pass, on a real serve (the steps themselves: ``tests/players/test_table_half_writes.py``)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import redis

from services.players import table_start, tables
from services.players.table_settings import TableSettings
from services.redis_launcher import free_port, running_url
from tests.gateway.client import wait_until
from tests.players.stack import sign_up
from tests.support.pipeline import stop_serve

pytestmark = pytest.mark.redis


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[tuple[str, redis.Redis]]:
    port = free_port()
    env = {**os.environ, "HARBORMASTER_DATA": str(tmp_path), "HARBORMASTER_LOG_LEVEL": "info"}
    env.pop("REDIS_URL", None)
    log = tmp_path / "serve.log"
    with open(log, "wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "services.cli", "serve", "--port", str(port)],
            env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 90
    while not _up(base):
        if process.poll() is not None or time.monotonic() > deadline:
            os.killpg(process.pid, signal.SIGKILL)
            raise AssertionError(f"serve never got going:\n{log.read_text(errors='replace')[-3000:]}")
        time.sleep(0.3)
    url = running_url(tmp_path)
    assert url is not None
    client = redis.Redis.from_url(url)
    try:
        yield base, client
    finally:
        client.close()
        stop_serve(process, tmp_path)


def _up(base: str) -> bool:
    try:
        return httpx.get(f"{base}/healthz", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


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
