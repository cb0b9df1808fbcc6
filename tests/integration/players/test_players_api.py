"""Accounts, tables, chat and ratings over HTTP on the real stack (Redis, gateway, fold worker with its
rating hook): the happy path once, then each refusal with its status and message."""

from __future__ import annotations

import time
from collections.abc import Iterator

import httpx
import pytest
import redis

from tests.support.harness import ServerThread
from tests.support.players_stack import rated_stack, sign_up


@pytest.fixture
def stack(redis_url: str, redis_client: redis.Redis) -> Iterator[ServerThread]:
    with rated_stack(redis_url) as server:
        yield server


def play_race_to_the_end(clients: list[httpx.Client], game_id: str) -> None:
    """Each seat rolls on its turn (by its session cookie alone) until the race is won."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        state = clients[0].get(f"/api/games/{game_id}").json()
        if state["status"] == "finished":
            return
        if state["to_act"][0] >= len(clients):  # a bot's turn: it moves on its own
            time.sleep(0.02)
            continue
        seat = state["to_act"][0]
        sent = clients[seat].post(
            f"/api/games/{game_id}/commands?wait=true", json={"command": {"type": "Roll"}}
        )
        assert sent.status_code in (200, 409), sent.text
    raise AssertionError("the race did not end")


def test_two_accounts_open_join_play_chat_and_are_rated(stack: ServerThread) -> None:
    ann, bob = sign_up(stack.base, "Ann"), sign_up(stack.base, "bob")
    assert ann.get("/api/session").json() == {"name": "Ann"}
    table = ann.post("/api/tables", json={"game": "race", "seats": 2}).json()
    assert table["seated"] == ["Ann"] and table["free"] == 1 and table["status"] == "open"
    listed = httpx.get(f"{stack.base}/api/tables").json()["tables"]
    assert [t["table_id"] for t in listed] == [table["table_id"]]
    joined = bob.post(f"/api/tables/{table['table_id']}/join").json()
    assert joined["status"] == "started" and joined["seated"] == ["Ann", "bob"]
    game_id = joined["game_id"]
    assert httpx.get(f"{stack.base}/api/tables").json()["tables"] == []
    mine = bob.get("/api/me/games").json()["games"]
    assert [(g["game_id"], g["seat"], g["names"]) for g in mine] == [(game_id, 1, ["Ann", "bob"])]
    assert ann.get(f"/api/games/{game_id}").json()["viewer"] == 0  # the seat comes from the session

    said = ann.post(f"/api/games/{game_id}/chat", json={"text": "good luck"})
    assert said.status_code == 201 and said.json()["author"] == "Ann" and said.json()["seat"] == 0
    play_race_to_the_end([ann, bob], game_id)

    deadline = time.monotonic() + 10
    while not (board := httpx.get(f"{stack.base}/api/leaderboards/race").json()["rows"]):
        assert time.monotonic() < deadline, "the game was not rated"
        time.sleep(0.05)
    assert sorted(row["name"] for row in board) == ["Ann", "bob"]
    assert {round(row["mu"], 3) for row in board} != {25.0}
    page = httpx.get(f"{stack.base}/api/accounts/ann").json()
    assert page["name"] == "Ann" and page["games"][0]["status"] == "finished"
    (race,) = page["ratings"]
    assert race["history"][0]["game_id"] == game_id and race["history"][0]["mu_before"] == 25.0
    assert race["history"][0]["before"] == 1500 and race["shown"] == race["history"][0]["after"]
    messages = httpx.get(f"{stack.base}/api/games/{game_id}/chat").json()["messages"]
    assert [m["text"] for m in messages] == ["good luck"]


def test_a_full_table_refuses_another_player_and_a_closed_one_any(stack: ServerThread) -> None:
    ann, bob, cyd = (sign_up(stack.base, n) for n in ("ann", "bob", "cyd"))
    table = ann.post("/api/tables", json={"game": "race", "seats": 3}).json()
    assert (
        ann.post(f"/api/tables/{table['table_id']}/join").json()["message"] == "you sit at this table already"
    )
    bob.post(f"/api/tables/{table['table_id']}/join")
    refused = bob.post(f"/api/tables/{table['table_id']}/start")
    assert refused.status_code == 403 and refused.json()["error"] == "not_creator"
    started = ann.post(f"/api/tables/{table['table_id']}/start").json()
    assert started["status"] == "started" and started["seated"] == ["ann", "bob"]
    late = cyd.post(f"/api/tables/{table['table_id']}/join")
    assert late.status_code == 409 and late.json()["error"] == "table_closed"


def test_refusals_of_bad_accounts_and_tables(stack: ServerThread) -> None:
    with httpx.Client(base_url=stack.base) as anon:
        assert anon.post("/api/accounts", json={"name": "x", "password": "long enough"}).status_code == 422
        short = anon.post("/api/accounts", json={"name": "dee", "password": "short"})
        assert short.status_code == 422 and "8 to 256" in short.json()["message"]
        assert anon.post("/api/accounts", json={"name": ["dee"], "password": "x" * 9}).status_code in (
            400,
            422,
        )
        assert anon.post("/api/tables", json={"game": "race", "seats": 2}).status_code == 401
        assert anon.get("/api/me/games").status_code == 401
        assert anon.get("/api/accounts/nobody").status_code == 404
        assert anon.get("/api/leaderboards/chess").status_code == 404
    ann = sign_up(stack.base, "ann")
    assert ann.post("/api/accounts", json={"name": "ANN", "password": "another one"}).status_code == 409
    bad = ann.post("/api/tables", json={"game": "race", "seats": 99})
    assert bad.status_code == 422, bad.text
    assert ann.post("/api/tables", json={"game": "race", "seats": 2, "options": {"x": 1}}).status_code == 422
    assert ann.delete("/api/session").status_code == 204
    assert ann.get("/api/session").json() == {"name": None}


def test_a_table_with_a_bot_rates_its_two_accounts_against_each_other(stack: ServerThread) -> None:
    ann, bob = sign_up(stack.base, "ann"), sign_up(stack.base, "bob")
    table = ann.post("/api/tables", json={"game": "race", "seats": 3, "bots": ["greedy"]}).json()
    assert (table["free"], table["bots"]) == (1, ["greedy"])
    game_id = bob.post(f"/api/tables/{table['table_id']}/join").json()["game_id"]
    assert ann.get(f"/api/games/{game_id}").json()["names"] == ["ann", "bob", "Greedy bot 3"]
    play_race_to_the_end([ann, bob], game_id)  # the bot rolls on its own turns
    deadline = time.monotonic() + 10
    while len(httpx.get(f"{stack.base}/api/leaderboards/race").json()["rows"]) < 2:
        assert time.monotonic() < deadline, "the game was not rated"
        time.sleep(0.05)
    only_bots = ann.post("/api/tables", json={"game": "race", "seats": 2, "bots": ["greedy", "random"]})
    assert only_bots.status_code == 422 and only_bots.json()["error"] == "no_open_seat"


def test_a_player_leaves_and_the_creator_cancels_an_open_table(stack: ServerThread) -> None:
    ann, bob = sign_up(stack.base, "ann"), sign_up(stack.base, "bob")
    table = ann.post("/api/tables", json={"game": "race", "seats": 3}).json()
    bob.post(f"/api/tables/{table['table_id']}/join")
    assert bob.post(f"/api/tables/{table['table_id']}/leave").json()["seated"] == ["ann"]
    cancelled = ann.post(f"/api/tables/{table['table_id']}/leave").json()
    assert cancelled["status"] == "cancelled"
    assert httpx.get(f"{stack.base}/api/tables").json()["tables"] == []
    assert bob.post(f"/api/tables/{table['table_id']}/join").json()["error"] == "table_closed"
