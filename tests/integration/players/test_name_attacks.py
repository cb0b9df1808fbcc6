"""Issue 43's attacks on names, each made, then refused (findings 10 and 16): ``admin``, ``system``,
``moderator`` and ``Harbormaster`` registered; a game made by ``POST /api/games`` named a seat exactly like
an existing account and chatted under that name; and a sign-up refused at Redis's memory limit left a hash
with no name (``name_taken`` for ever, sign-in 401)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import httpx
import pytest
import redis
import redis.asyncio

from domain.players.reserved import is_reserved
from services.players import accounts
from tests.support.harness import ServerThread, running_stack
from tests.support.players_stack import sign_up

PASSWORD = "correct horse battery"


@pytest.fixture
def stack(redis_url: str, redis_client: redis.Redis) -> Iterator[ServerThread]:
    with running_stack(redis_url) as server:
        yield server


@pytest.mark.parametrize(
    "name", ["admin", "System", "MODERATOR", "Harbormaster", "harbor-master", "Adm1n", "m0derator", "r00t"]
)
def test_the_services_names_and_their_look_alikes_are_refused(stack: ServerThread, name: str) -> None:
    refused = httpx.post(f"{stack.base}/api/accounts", json={"name": name, "password": PASSWORD})
    assert refused.status_code == 422 and refused.json()["error"] == "reserved_name"
    assert (
        httpx.post(f"{stack.base}/api/session", json={"name": name, "password": PASSWORD}).status_code == 401
    )


def test_look_alikes_outside_ascii_read_as_the_name_they_copy() -> None:
    for name in ("Аdmin", "ａｄｍｉｎ", "ad\u200bmin", "Ѕystem", "ΜΟDERATOR".lower(), "Harbor Master"):
        assert is_reserved(name), name
    for name in ("ann", "administrate", "modest", "systems", "Player 2", "Greedy bot 3"):
        assert not is_reserved(name), name


@pytest.mark.parametrize("seat_name", ["ann", "ANN", "Аnn", "Ａｎｎ", "a nn", "Moderator", "Harb0rmaster"])
def test_a_game_over_http_may_not_name_a_seat_as_an_account_or_the_service(
    stack: ServerThread, seat_name: str
) -> None:
    sign_up(stack.base, "ann")
    made = httpx.post(
        f"{stack.base}/api/games", json={"game": "race", "seats": 2, "names": [seat_name, "Bea"]}
    )
    assert made.status_code == 422 and made.json()["error"] in ("name_of_account", "reserved_name")
    assert httpx.get(f"{stack.base}/api/games").json()["games"] == []  # no game, so no chat as "ann"


def test_a_seat_named_otherwise_is_made_and_chats_under_its_name(stack: ServerThread) -> None:
    sign_up(stack.base, "ann")
    made = httpx.post(f"{stack.base}/api/games", json={"game": "race", "seats": 2, "names": ["Anna", "Bea"]})
    assert made.status_code == 201
    game_id, token = made.json()["game_id"], made.json()["seats"][0]["token"]
    said = httpx.post(
        f"{stack.base}/api/games/{game_id}/chat",
        json={"text": "hello"},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert said.status_code in (200, 201) and said.json()["author"] == "Anna"


def test_a_sign_up_refused_at_the_memory_limit_leaves_nothing(
    redis_url: str, redis_client: redis.Redis
) -> None:
    redis_client.config_set("maxmemory-policy", "noeviction")
    redis_client.config_set("maxmemory", 1)  # every write is over: "OOM command not allowed"
    try:
        with pytest.raises(redis.exceptions.OutOfMemoryError):
            asyncio.run(_sign_up(redis_url, "cyd"))
    finally:
        redis_client.config_set("maxmemory", 0)
    assert not redis_client.exists(accounts.account_key("cyd"))  # before: a hash with no name
    assert asyncio.run(_sign_up(redis_url, "cyd")) == "cyd"  # so the name is free, and then taken
    assert redis_client.hget(accounts.account_key("cyd"), "name") == b"cyd"


def test_a_record_an_older_sign_up_left_without_a_name_is_taken_over(
    stack: ServerThread, redis_client: redis.Redis
) -> None:
    redis_client.hset(accounts.account_key("dee"), "hash", "$argon2id$left-by-a-refused-second-write")
    dee = sign_up(stack.base, "dee")  # before: 409 name_taken for ever
    assert dee.get("/api/session").json()["name"] == "dee"
    again = httpx.post(f"{stack.base}/api/accounts", json={"name": "DEE", "password": PASSWORD})
    assert again.status_code == 409 and again.json()["error"] == "name_taken"
    signed_in = httpx.post(f"{stack.base}/api/session", json={"name": "dee", "password": PASSWORD})
    assert signed_in.status_code == 200


async def _sign_up(url: str, name: str) -> str:
    client = redis.asyncio.Redis.from_url(url)
    try:
        return await accounts.sign_up(client, accounts.Hashing(), name, PASSWORD)
    finally:
        await client.aclose()
