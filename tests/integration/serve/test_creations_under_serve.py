"""``harbormaster serve``'s own pass undoes a game creation a killed gateway left before its tokens, lists
and sets going one it left after them, and removes an account record with no name (issue 43, finding 10):
the wiring of ``services/game_creation.py`` and ``services/players/account_sweep.py`` into serve's periodic
pass, on a real serve (the steps themselves: ``tests/integration/api/test_game_creation_half_writes.py`` and
``tests/integration/players/test_nameless_accounts_swept.py``)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import redis
import redis.asyncio

from events import keys
from services import game_creation
from services.games import create_game
from services.players import account_sweep, accounts
from tests.support.client import wait_until
from tests.support.pipeline import services_for
from tests.support.serving import running_serve


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[tuple[str, str]]:
    with running_serve(tmp_path) as (base, url):
        yield base, url


async def _finish(url: str, game_id: str, mark: str) -> bool:
    async with redis.asyncio.Redis.from_url(url) as client:
        return await game_creation.finish(client, game_id, mark, {}, ["Cy"], 0.0)


def test_serve_undoes_lists_and_sweeps_what_killed_writers_left(serve: tuple[str, str]) -> None:
    base, url = serve
    services = services_for(url)
    client = services.redis
    bots = {seat: "random" for seat in range(3)}
    # A gateway killed after making its game: held, no tokens. Another killed after writing them: not listed.
    create_game(services, "manila", 3, game_id="killedmade", bots=bots, redis_url=url, hold="mark-1")
    create_game(services, "manila", 3, game_id="killedwhole", bots=bots, redis_url=url, hold="mark-2")
    assert asyncio.run(_finish(url, "killedwhole", "mark-2"))
    # An older version's sign-up refused between its hash and its name, on data this serve never swept.
    client.hset(accounts.account_key("dee"), "hash", "$argon2id$left-by-an-older-sign-up")
    client.delete(account_sweep.SWEPT)
    assert client.zcard(keys.CREATING) == 2 and client.zscore(keys.LIVE_GAMES, "killedwhole") is None
    set_up = services.store.meta("killedwhole").last_seq  # and its bots never set going
    wait_until(lambda: client.zcard(keys.CREATING) == 0, timeout=60)  # once 10 s old, at a 3 s pass
    assert not client.exists(keys.meta("killedmade"), keys.events("killedmade"))
    assert client.zscore(keys.LIVE_GAMES, "killedwhole") is not None
    wait_until(lambda: services.store.meta("killedwhole").last_seq > set_up, timeout=60)  # its bots play
    assert httpx.get(f"{base}/api/games/killedmade").status_code == 404
    wait_until(lambda: not client.exists(accounts.account_key("dee")), timeout=60)
    signed_up = httpx.post(f"{base}/api/accounts", json={"name": "dee", "password": "correct horse battery"})
    assert signed_up.status_code == 201
