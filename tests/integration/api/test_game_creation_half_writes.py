"""Issue 43, finding 10, for ``POST /api/games``: a gateway killed between making a game and storing its seat
tokens left a game nobody held a token for (live for ever), and the store listed every new game in a step
after its script. Here each kill is made deterministic: the gateway's creation stops dead after a step
(``game_creation.between_steps``), or the store's listing raises, and ``serve``'s reconciler
(``game_creation.reconcile``) then undoes or finishes what was left."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest
import redis

from events import keys
from events.store import now_ms
from services import game_creation
from services.bootstrap import Services
from services.game_creation import STALE_MS
from services.games import create_game
from services.gateway.access.auth import mint_tokens, tokens_key
from services.gateway.feeds.fanout import spectating_key
from tests.support.client import post_command, wait_until
from tests.support.harness import ServerThread
from tests.support.pipeline import services_for
from tests.support.step_hooks import killing_at, pausing_at, stack_hooked


@pytest.fixture
def stack(redis_url: str, redis_client: redis.Redis) -> Iterator[ServerThread]:
    with stack_hooked(redis_url, game_creation) as server:
        yield server


@pytest.fixture
def services(redis_url: str) -> Services:
    return services_for(redis_url)


def created(stack: ServerThread, spec: dict[str, Any], step: str) -> None:
    """``spec`` posted while the gateway dies right after ``step``."""
    game_creation.between_steps = killing_at(step)
    with httpx.Client(base_url=stack.base) as dying:  # its connection is lost with it
        assert dying.post("/api/games", json=spec).status_code == 500
    game_creation.between_steps = None


def reconcile_later(client: redis.Redis) -> int:
    """The reconciler's pass once the creation is old enough to be a dead creator's (its clock, no waiting)."""
    return game_creation.reconcile(client, now_ms() + STALE_MS + 1)


def reconciled_while_paused(stack: ServerThread, client: redis.Redis, step: str) -> httpx.Response:
    """``SPEC`` posted while the creator pauses after ``step`` (slow, not dead) and the reconciler, taking it
    for a dead one's, passes over its creation meanwhile: the answer the creator gives once let go on."""
    paused, go_on = threading.Event(), threading.Event()
    game_creation.between_steps = pausing_at(step, paused, go_on)
    with ThreadPoolExecutor(1) as pool, httpx.Client(base_url=stack.base, timeout=60) as api:
        posting = pool.submit(api.post, "/api/games", json=SPEC)
        assert paused.wait(30)
        assert reconcile_later(client) == 1
        go_on.set()
        return posting.result(60)


def game_keys(client: redis.Redis, game_id: str) -> list[bytes]:
    return sorted(client.scan_iter(match=f"hm:{{g:{game_id}}}:*"))


SPEC = {"game": "race", "seats": 2, "game_id": "half", "names": ["Cy", "Dee"], "spectator_delay_seconds": 5}


def test_a_creation_killed_before_its_tokens_is_undone_and_the_id_free_again(
    stack: ServerThread, redis_client: redis.Redis
) -> None:
    created(stack, SPEC, "made")
    # The attack's state: a game that nobody was shown a token for. It is not served, nor listed.
    assert redis_client.hget(keys.meta("half"), "creating") is not None
    assert not redis_client.exists(tokens_key("half")) and not redis_client.exists(spectating_key("half"))
    assert httpx.get(f"{stack.base}/api/games/half").status_code == 404
    assert redis_client.zcard(keys.GAMES_INDEX) == 0 and redis_client.zcard(keys.LIVE_GAMES) == 0
    assert game_creation.reconcile(redis_client, now_ms()) == 0  # too soon: a live creator may be at work
    assert game_keys(redis_client, "half")
    assert reconcile_later(redis_client) == 1
    assert game_keys(redis_client, "half") == [] and redis_client.zcard(keys.CREATING) == 0
    with httpx.Client(base_url=stack.base) as api:  # the client's retry makes it, whole
        again = api.post("/api/games", json=SPEC)
        assert again.status_code == 201
        token = again.json()["seats"][0]["token"]
        assert post_command(api, "half", token, {"command": {"type": "Roll"}}).status_code == 200
        assert api.get("/api/games/half").json()["names"] == ["Cy", "Dee"]
    assert redis_client.hget(spectating_key("half"), "delay_s") == b"5.0"
    assert [g.decode() for g in redis_client.zrange(keys.LIVE_GAMES, 0, -1)] == ["half"]


def test_a_creation_killed_after_its_tokens_is_listed_and_its_bot_plays(
    stack: ServerThread, redis_client: redis.Redis
) -> None:
    spec = {"game": "race", "seats": 1, "options": {"goal": 1}, "bots": {"0": "random"}, "game_id": "bot"}
    created(stack, spec, "finished")
    assert redis_client.hget(keys.meta("bot"), "creating") is None  # whole, but in no list
    assert redis_client.zscore(keys.LIVE_GAMES, "bot") is None
    assert redis_client.xlen(keys.events("bot")) == 1  # set up, and its bot never set going
    assert reconcile_later(redis_client) == 1
    assert redis_client.zscore(keys.GAMES_INDEX, "bot") is not None and redis_client.zcard(keys.CREATING) == 0
    wait_until(lambda: httpx.get(f"{stack.base}/api/games/bot").json()["status"] == "finished", timeout=30)


def test_a_paused_creator_whose_game_the_reconciler_undid_answers_503_and_leaves_nothing(
    stack: ServerThread, redis_client: redis.Redis
) -> None:
    answer = reconciled_while_paused(stack, redis_client, "made")  # the reconciler undoes the slow creator's
    assert (answer.status_code, answer.json()["error"]) == (503, "creation_interrupted")
    assert game_keys(redis_client, "half") == []  # no tokens nor names written after the undo
    assert redis_client.zcard(keys.GAMES_INDEX) == 0 and redis_client.zcard(keys.CREATING) == 0


def test_a_paused_creator_and_the_reconciler_that_listed_its_game_agree(
    stack: ServerThread, redis_client: redis.Redis
) -> None:
    answer = reconciled_while_paused(stack, redis_client, "finished")
    assert answer.status_code == 201
    token = answer.json()["seats"][1]["token"]
    with httpx.Client(base_url=stack.base, timeout=60) as api:
        assert (
            post_command(api, "half", token, {"command": {"type": "Note", "text": "hi"}}).status_code == 200
        )
    assert [g.decode() for g in redis_client.zrange(keys.GAMES_INDEX, 0, -1)] == ["half"]
    assert redis_client.zcard(keys.CREATING) == 0


def test_a_game_made_without_a_hold_whose_creator_died_before_listing_it_is_listed(
    stack: ServerThread, services: Services, redis_client: redis.Redis
) -> None:
    """Tables, tournaments, the command line: the store's script made the game, its listing never came.
    The store may be compiled (its methods cannot be replaced), so the state such a kill leaves is made
    by taking each new game's listing back: in ``CREATING`` at its creation time, in no game list."""
    for game_id in ("waiting", "ended"):
        create_game(services, "race", 1, {"goal": 1}, game_id=game_id)
        created_ms = redis_client.zscore(keys.GAMES_INDEX, game_id)
        assert created_ms is not None
        redis_client.zrem(keys.GAMES_INDEX, game_id)
        redis_client.zrem(keys.LIVE_GAMES, game_id)
        redis_client.zadd(keys.CREATING, {game_id: created_ms})
    assert redis_client.zcard(keys.GAMES_INDEX) == 0 and redis_client.zcard(keys.CREATING) == 2
    token = mint_tokens(redis_client, "ended", [0])[0]
    with httpx.Client(base_url=stack.base) as api:  # played to its end before the reconciler came
        assert post_command(api, "ended", token, {"command": {"type": "Roll"}}).status_code == 200
    assert redis_client.hget(keys.meta("ended"), "status") == b"finished"
    assert reconcile_later(redis_client) == 2
    assert {g.decode() for g in redis_client.zrange(keys.GAMES_INDEX, 0, -1)} == {"waiting", "ended"}
    assert [g.decode() for g in redis_client.zrange(keys.LIVE_GAMES, 0, -1)] == ["waiting"]
    assert redis_client.zcard(keys.CREATING) == 0


def test_a_refused_creation_of_a_taken_id_leaves_the_game_as_it_was(
    stack: ServerThread, redis_client: redis.Redis
) -> None:
    with httpx.Client(base_url=stack.base) as api:
        first = api.post("/api/games", json=SPEC)
        assert first.status_code == 201
        assert api.post("/api/games", json=SPEC).status_code == 409
    token = first.json()["seats"][0]["token"]
    assert reconcile_later(redis_client) == 1  # the refused creation's entry, settled: nothing undone
    with httpx.Client(base_url=stack.base) as api:
        assert post_command(api, "half", token, {"command": {"type": "Roll"}}).status_code == 200
    assert redis_client.zcard(keys.CREATING) == 0 and redis_client.zcard(keys.LIVE_GAMES) == 1


def test_an_entry_with_no_game_is_kept_for_its_creator_then_dropped(redis_client: redis.Redis) -> None:
    began = now_ms()
    redis_client.zadd(keys.CREATING, {"never": began})  # a creator paused (or killed) before its script
    assert game_creation.reconcile(redis_client, began + STALE_MS + 1) == 0
    assert redis_client.zscore(keys.CREATING, "never") is not None
    assert game_creation.reconcile(redis_client, began + game_creation.GRACE_MS + 1) == 1
    assert redis_client.zcard(keys.CREATING) == 0


def test_a_creation_whose_tokens_redis_refuses_at_its_memory_limit_is_refused_then_undone(
    stack: ServerThread, redis_client: redis.Redis
) -> None:
    async def memory_full(done: str) -> None:
        if done == "made":
            redis_client.config_set("maxmemory-policy", "noeviction")
            redis_client.config_set("maxmemory", 1)  # every write from here on: "OOM command not allowed"

    game_creation.between_steps = memory_full
    try:
        with httpx.Client(base_url=stack.base) as api:
            refused = api.post("/api/games", json=SPEC)
    finally:
        redis_client.config_set("maxmemory", 0)
    assert (refused.status_code, refused.json()["error"]) == (503, "unavailable")
    assert not redis_client.exists(tokens_key("half"), spectating_key("half"))  # the script wrote nothing
    assert reconcile_later(redis_client) == 1
    assert game_keys(redis_client, "half") == [] and redis_client.zcard(keys.CREATING) == 0
