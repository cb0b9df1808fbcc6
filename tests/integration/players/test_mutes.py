"""Chat mutes kept with the account (``/api/me/muted``) on the real stack: what one device mutes, another
device of the same account finds muted; another account is untouched; each refusal changes nothing."""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import quote

import httpx
import pytest
import redis

from domain.players.rules import MAX_MUTED
from services.players.mutes import muted_key
from tests.support.harness import ServerThread
from tests.support.players_stack import rated_stack, sign_up

PASSWORD = "correct horse battery"


@pytest.fixture
def stack(redis_url: str, redis_client: redis.Redis) -> Iterator[ServerThread]:
    with rated_stack(redis_url) as server:
        yield server


def test_a_mute_follows_the_account_to_another_device_and_is_undone(stack: ServerThread) -> None:
    ann, bob = sign_up(stack.base, "Ann"), sign_up(stack.base, "bob")
    for author in ("bob", "greedy bot", "bob"):  # muting twice is muting once
        assert ann.put(f"/api/me/muted/{quote(author)}").status_code == 204
    phone = httpx.Client(base_url=stack.base, timeout=30)
    assert phone.post("/api/session", json={"name": "ann", "password": PASSWORD}).status_code == 200
    assert phone.get("/api/me/muted").json() == {"muted": ["bob", "greedy bot"]}
    assert bob.get("/api/me/muted").json() == {"muted": []}  # a mute is its author's alone

    assert phone.delete("/api/me/muted/bob").status_code == 204
    assert ann.get("/api/me/muted").json() == {"muted": ["greedy bot"]}
    assert ann.delete("/api/me/muted/nobody").status_code == 204  # unmuting one not muted changes nothing
    assert ann.get("/api/me/muted").json() == {"muted": ["greedy bot"]}


def test_mutes_are_refused_without_an_account_and_for_bad_names_and_have_a_limit(
    stack: ServerThread, redis_client: redis.Redis
) -> None:
    with httpx.Client(base_url=stack.base) as nobody:
        for method in ("get", "put", "delete"):
            path = "/api/me/muted" if method == "get" else "/api/me/muted/bob"
            refused = nobody.request(method, path)
            assert refused.status_code == 401 and refused.json()["error"] == "not_signed_in", method
    ann = sign_up(stack.base, "ann")
    for author in ("x" * 65, "bell\x07"):
        refused = ann.put(f"/api/me/muted/{quote(author)}")
        assert refused.status_code == 422 and refused.json()["error"] == "bad_author", refused.text
    assert ann.get("/api/me/muted").json() == {"muted": []}

    redis_client.sadd(muted_key("ann"), *(f"author {n}" for n in range(MAX_MUTED)))
    full = ann.put("/api/me/muted/one%20more")
    assert full.status_code == 409 and full.json()["error"] == "too_many_muted", full.text
    assert "unmute one first" in full.json()["message"]
    assert len(ann.get("/api/me/muted").json()["muted"]) == MAX_MUTED
    assert ann.put("/api/me/muted/author%207").status_code == 204  # one already muted: no refusal
