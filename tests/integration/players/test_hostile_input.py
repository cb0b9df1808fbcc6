"""Whatever a client sends to the players' endpoints is answered with a 4xx and a message, never a 5xx."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import redis

from tests.support.client import create
from tests.support.harness import ServerThread
from tests.support.players_stack import rated_stack, sign_up

HOSTILE_TABLES: list[Any] = [
    {"game": "manila", "seats": 3, "options": {"deal": 5}},
    {"game": "manila", "seats": 3, "options": {"deal": []}},
    {"game": "elcapitan", "seats": 3, "options": {"expansions": 5}},
    {"game": "elcapitan", "seats": 3, "options": {"expansions": ["atlantis"]}},
    {"game": "eic", "seats": 3, "options": {"pledging": "yes"}},
    {"game": "manila", "seats": "3"},
    {"game": "manila", "seats": 10**30},
    {"game": "manila", "seats": -1},
    {"game": "manila", "seats": 3, "bots": ["evil"]},
    {"game": "manila", "seats": 3, "rated": "no"},
    {"game": None, "seats": 3},
    [],
    "table",
    {"game": "manila", "seats": 3, "extra": 1},
]
HOSTILE_CHAT: list[Any] = [
    {"text": 5},
    {"text": "x" * 70_000},
    {"text": "hi", "channel": "everyone"},
    {"text": "\u0000\u200b"},
    {},
    None,
    {"text": "hi", "channel": ["players"]},
]
HOSTILE_CREDENTIALS: list[Any] = [
    {"name": "a" * 10_000, "password": "x" * 10},
    {"name": "ann", "password": "x" * 60_000},
    {"name": "\ud7ff\u0000", "password": "password1"},
    {"name": 1, "password": 2},
    {"name": "ann"},
    [1, 2],
]


@pytest.fixture
def stack(redis_url: str, redis_client: redis.Redis) -> Iterator[ServerThread]:
    with rated_stack(redis_url) as server:
        yield server


def test_hostile_bodies_and_paths_are_refused_with_a_message(stack: ServerThread) -> None:
    ann = sign_up(stack.base, "ann")
    with httpx.Client(base_url=stack.base, timeout=30) as api:
        game = create(api, "race", 2)
    answers = [ann.post("/api/tables", json=body) for body in HOSTILE_TABLES]
    answers += [ann.post(f"/api/games/{game['game_id']}/chat", json=body) for body in HOSTILE_CHAT]
    answers += [ann.post("/api/session", json=body) for body in HOSTILE_CREDENTIALS]
    answers += [ann.post("/api/accounts", json=body) for body in HOSTILE_CREDENTIALS]
    answers += [
        ann.post("/api/tables", content=b"{not json"),
        ann.post("/api/tables", content=b"[" * 100 + b"]" * 100),
    ]
    for path in ("/api/tables/" + "x" * 5000, "/api/tables/../../x", "/api/accounts/" + "%00" * 10,
                 "/api/leaderboards/" + "y" * 3000, "/api/games/nope/chat", "/players/%ff"):  # fmt: skip
        answers += [ann.get(path), ann.post(path + "/join")]
    answers += [ann.post("/api/tournaments/nope/account", json={"key": "k"})]
    for answer in answers:
        assert answer.status_code < 500, (answer.request.url, answer.request.content[:80], answer.text)
        if answer.status_code >= 400 and answer.headers.get("content-type") == "application/json":
            assert answer.json()["message"], answer.text
    assert ann.get("/api/session").json() == {"name": "ann"}  # the gateway is still there, and so is ann
