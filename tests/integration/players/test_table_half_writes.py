"""Issue 43, finding 10: ``kill -9`` of the gateway while tables started left tables ``starting`` with no
game (their players could neither leave nor rejoin) and games with no accounts record (in nobody's *My
games*). Here the kill is made deterministic: the gateway's start stops dead after a step
(``table_start.between_steps``), and ``serve``'s reconciler then finishes, or undoes, what it left."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
import redis

from events import keys
from services.bootstrap import Services
from services.players import table_clock, table_start, tables
from services.players.table_start import STALE_MS, reconcile_tables
from tests.support.harness import ServerThread
from tests.support.pipeline import services_for
from tests.support.players_stack import sign_up
from tests.support.step_hooks import killing_at, pausing_at, stack_hooked


@pytest.fixture
def stack(redis_url: str, redis_client: redis.Redis) -> Iterator[ServerThread]:
    with stack_hooked(redis_url, table_start) as server:
        yield server


@pytest.fixture
def services(redis_url: str) -> Services:
    return services_for(redis_url)


def half_started(stack: ServerThread, step: str) -> tuple[httpx.Client, httpx.Client, str]:
    """ann's two-seat table, bob taking its last seat while the gateway dies after ``step``."""
    ann, bob = sign_up(stack.base, "ann"), sign_up(stack.base, "bob")
    table_id = ann.post("/api/tables", json={"game": "race", "seats": 2}).json()["table_id"]
    table_start.between_steps = killing_at(step)
    with httpx.Client(base_url=stack.base, cookies=bob.cookies) as dying:  # its connection is lost with it
        assert dying.post(f"/api/tables/{table_id}/join").status_code == 500
    table_start.between_steps = None
    return ann, bob, table_id


def reconcile_later(services: Services, url: str) -> None:
    """The reconciler's pass once the claim is old enough to be a dead gateway's (no waiting: its clock)."""
    reconcile_tables(services, url, tables.now_ms() + STALE_MS + 1)


def assert_whole(stack: ServerThread, ann: httpx.Client, bob: httpx.Client, table_id: str) -> str:
    """The table started, its game in both players' *My games* at their seats, named, and playable."""
    table = ann.get(f"/api/tables/{table_id}").json()
    assert table["status"] == "started" and table["game_id"]
    game_id = str(table["game_id"])
    for seat, player in enumerate((ann, bob)):
        mine = player.get("/api/me/games").json()["games"]
        assert [(g["game_id"], g["seat"], g["names"]) for g in mine] == [(game_id, seat, ["ann", "bob"])]
    rolled = ann.post(f"/api/games/{game_id}/commands?wait=true", json={"command": {"type": "Roll"}})
    assert rolled.status_code == 200
    return game_id


def test_a_start_killed_after_its_claim_is_finished_by_the_reconciler(
    stack: ServerThread, services: Services, redis_url: str, redis_client: redis.Redis
) -> None:
    ann, bob, table_id = half_started(stack, "claimed")
    assert ann.get(f"/api/tables/{table_id}").json()["status"] == "starting"  # the attack's state
    assert bob.post(f"/api/tables/{table_id}/leave").status_code == 409
    assert redis_client.zcard(keys.GAMES_INDEX) == 0 and bob.get("/api/me/games").json()["games"] == []
    reconcile_tables(services, redis_url, tables.now_ms())  # too soon: a live gateway may be at work
    assert ann.get(f"/api/tables/{table_id}").json()["status"] == "starting"
    reconcile_later(services, redis_url)
    assert_whole(stack, ann, bob, table_id)
    assert redis_client.zcard(table_start.STARTING) == 0


def test_a_start_killed_after_its_game_was_made_is_finished_by_the_reconciler(
    stack: ServerThread, services: Services, redis_url: str, redis_client: redis.Redis
) -> None:
    ann, bob, table_id = half_started(stack, "made")
    game_id = redis_client.zrange(keys.GAMES_INDEX, 0, -1)[0].decode()  # a game, with no accounts record
    assert bob.get("/api/me/games").json()["games"] == []
    assert ann.get(f"/api/games/{game_id}").json()["viewer"] is None
    reconcile_later(services, redis_url)
    assert assert_whole(stack, ann, bob, table_id) == game_id
    assert redis_client.zcard(keys.GAMES_INDEX) == 1  # finished with the game made, not a second one


def test_a_paused_start_and_the_reconciler_agree_on_one_game(
    stack: ServerThread, services: Services, redis_url: str, redis_client: redis.Redis
) -> None:
    ann, bob = sign_up(stack.base, "ann"), sign_up(stack.base, "bob")
    table_id = ann.post("/api/tables", json={"game": "race", "seats": 2}).json()["table_id"]
    paused, go_on = threading.Event(), threading.Event()

    table_start.between_steps = pausing_at("claimed", paused, go_on)
    with ThreadPoolExecutor(1) as pool:
        joining = pool.submit(bob.post, f"/api/tables/{table_id}/join")
        assert paused.wait(30)
        reconcile_later(services, redis_url)  # the gateway is slow, not dead: the reconciler takes over
        by_reconciler = ann.get(f"/api/tables/{table_id}").json()["game_id"]
        go_on.set()
        joined = joining.result(30)
    assert joined.status_code == 200 and joined.json()["game_id"] == by_reconciler
    assert redis_client.zcard(keys.GAMES_INDEX) == 1
    assert_whole(stack, ann, bob, table_id)


def test_a_killed_start_the_rules_refuse_is_undone(
    stack: ServerThread, services: Services, redis_url: str, redis_client: redis.Redis
) -> None:
    ann, bob, table_id = half_started(stack, "claimed")
    redis_client.hset(tables.table_key(table_id), "options", b'{"no such option": 1}')  # now refused
    reconcile_later(services, redis_url)
    table = ann.get(f"/api/tables/{table_id}").json()
    assert table["status"] == "open" and table["seated"] == ["ann", "bob"]
    assert [t["table_id"] for t in httpx.get(f"{stack.base}/api/tables").json()["tables"]] == [table_id]
    assert bob.post(f"/api/tables/{table_id}/leave").json()["seated"] == ["ann"]  # free to go again
    assert redis_client.zcard(keys.GAMES_INDEX) == 0
    assert redis_client.zcard(tables.account_made_key("ann")) == 0  # the quota given back


def test_a_table_an_older_version_left_starting_is_opened_again(
    stack: ServerThread, services: Services, redis_url: str, redis_client: redis.Redis
) -> None:
    ann, bob = sign_up(stack.base, "ann"), sign_up(stack.base, "bob")
    table_id = ann.post("/api/tables", json={"game": "race", "seats": 3}).json()["table_id"]
    bob.post(f"/api/tables/{table_id}/join")
    redis_client.hset(tables.table_key(table_id), "status", "starting")  # the old claim, then a kill:
    redis_client.zrem(tables.OPEN, table_id)  # no game id chosen, in no list of starts
    assert bob.post(f"/api/tables/{table_id}/leave").status_code == 409  # stuck, as in the finding
    two = ann.post("/api/tables", json={"game": "race", "seats": 2}).json()["table_id"]
    game_id = bob.post(f"/api/tables/{two}/join").json()["game_id"]
    redis_client.zrem(table_clock.LIVE, game_id)  # started by an older version: in no list of live games
    reconcile_tables(services, redis_url, tables.now_ms())
    assert redis_client.zscore(table_clock.LIVE, game_id) is not None  # it too ends if left
    assert ann.get(f"/api/tables/{table_id}").json()["status"] == "open"
    assert [t["table_id"] for t in httpx.get(f"{stack.base}/api/tables").json()["tables"]] == [table_id]
    assert bob.post(f"/api/tables/{table_id}/leave").json()["seated"] == ["ann"]
