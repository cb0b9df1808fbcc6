"""Rematch (issue 44.10) on the real stack: after a table's game ends, a player opens a private table with
the same game, seats, options and bots, and the other players are given that very table; a game has one
rematch, even when two players propose it at the same moment (made to cross at a hook)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
import redis

from services.gateway.api import rematch_http
from tests.support.harness import ServerThread
from tests.support.players_stack import rated_stack, sign_up

RACE_TO_ONE = {"game": "race", "seats": 3, "bots": ["random"], "options": {"goal": 1}}


@pytest.fixture
def stack(redis_url: str, redis_client: redis.Redis) -> Iterator[ServerThread]:
    with rated_stack(redis_url) as server:
        yield server
    rematch_http.between = None


def finished_game(ann: httpx.Client, bob: httpx.Client) -> str:
    """A race to 1 at ann's table, bob joining: ann's first roll wins it."""
    table = ann.post("/api/tables", json=RACE_TO_ONE).json()
    game_id = str(bob.post(f"/api/tables/{table['table_id']}/join").json()["game_id"])
    assert ann.post(f"/api/games/{game_id}/rematch").status_code == 409  # not over yet
    rolled = ann.post(f"/api/games/{game_id}/commands?wait=true", json={"command": {"type": "Roll"}})
    assert rolled.status_code == 200 and ann.get(f"/api/games/{game_id}").json()["status"] == "finished"
    return game_id


def test_a_rematch_is_the_same_table_and_every_player_is_given_it(stack: ServerThread) -> None:
    ann, bob, cat = (sign_up(stack.base, n) for n in ("ann", "bob", "cat"))
    game_id = finished_game(ann, bob)
    assert httpx.get(f"{stack.base}/api/games/{game_id}/rematch").json()["table_id"] is None
    assert cat.post(f"/api/games/{game_id}/rematch").json()["error"] == "not_a_player"
    table_id = bob.post(f"/api/games/{game_id}/rematch").json()["table_id"]
    table = httpx.get(f"{stack.base}/api/tables/{table_id}").json()
    same = {"game": "race", "seats": 3, "options": {"goal": 1}, "bots": ["random"], "rated": True}
    assert {key: table[key] for key in same} == same
    assert (table["seated"], table["private"], table["status"]) == (["bob"], True, "open")
    on_anns_screen = httpx.get(f"{stack.base}/api/games/{game_id}/rematch").json()
    assert on_anns_screen["table_id"] == table_id
    assert ann.post(f"/api/games/{game_id}/rematch").json()["table_id"] == table_id  # no second table
    started = ann.post(f"/api/tables/{table_id}/join").json()
    assert started["status"] == "started" and started["seated"] == ["bob", "ann"]
    assert httpx.get(f"{stack.base}/api/tables").json()["tables"] == []  # private: never listed


def test_two_proposals_at_once_end_at_one_table(stack: ServerThread, redis_client: redis.Redis) -> None:
    ann, bob = sign_up(stack.base, "ann"), sign_up(stack.base, "bob")
    game_id = finished_game(ann, bob)
    paused, go_on = threading.Event(), threading.Event()

    async def hold_anns(step: str) -> None:
        if step == "opened" and not paused.is_set():
            paused.set()  # ann's table is open, not yet named the rematch
            while not go_on.is_set():
                await asyncio.sleep(0.01)

    rematch_http.between = hold_anns
    with ThreadPoolExecutor(1) as pool:
        anns = pool.submit(ann.post, f"/api/games/{game_id}/rematch")
        assert paused.wait(30)
        bobs = bob.post(f"/api/games/{game_id}/rematch").json()["table_id"]  # bob's crosses ann's and wins
        go_on.set()
        assert anns.result(30).json()["table_id"] == bobs
    open_of_ann = [
        key for key in redis_client.scan_iter("hm:table:*")
        if not key.endswith(b":seated") and redis_client.hget(key, "creator") == b"ann"
        and redis_client.hget(key, "status") == b"open"
    ]  # fmt: skip
    assert open_of_ann == []  # ann's own table was cancelled, her quota given back
    assert redis_client.scard("hm:tables:of:ann") == 0
