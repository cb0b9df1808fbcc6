"""Tables for a group (issue 44.10) over HTTP on the real stack: a private table is left out of the lobby's
list and reached by its id (the invite link) alone, where anyone seats themselves; *My games* gives each
game's date and, once it has ended, its winners, read once and kept."""

from __future__ import annotations

import time
from collections.abc import Iterator

import httpx
import pytest
import redis

from services.gateway.api.game_winners import WINNERS
from services.gateway.api.linked_games import MAX_LINKED
from tests.integration.players.test_players_api import play_race_to_the_end
from tests.support.client import bearer
from tests.support.harness import ServerThread
from tests.support.players_stack import rated_stack, sign_up


@pytest.fixture
def stack(redis_url: str, redis_client: redis.Redis) -> Iterator[ServerThread]:
    with rated_stack(redis_url) as server:
        yield server


def test_a_private_table_is_unlisted_and_its_invite_link_seats_a_friend(stack: ServerThread) -> None:
    ann, bob, cat = sign_up(stack.base, "ann"), sign_up(stack.base, "bob"), sign_up(stack.base, "cat")
    private = ann.post("/api/tables", json={"game": "race", "seats": 3, "private": True}).json()
    public = ann.post("/api/tables", json={"game": "race", "seats": 2}).json()
    assert private["private"] is True and public["private"] is False
    listed = [t["table_id"] for t in httpx.get(f"{stack.base}/api/tables").json()["tables"]]
    assert listed == [public["table_id"]]  # the private one is nowhere in the lobby
    invited = httpx.get(f"{stack.base}/api/tables/{private['table_id']}").json()  # the link, signed out
    assert invited["status"] == "open" and invited["free"] == 2 and invited["private"] is True
    assert bob.post(f"/api/tables/{private['table_id']}/join").json()["seated"] == ["ann", "bob"]
    started = cat.post(f"/api/tables/{private['table_id']}/join").json()
    assert started["status"] == "started" and started["game_id"]
    listed = [t["table_id"] for t in httpx.get(f"{stack.base}/api/tables").json()["tables"]]
    assert listed == [public["table_id"]]


def test_my_games_have_a_date_and_once_ended_their_winners(
    stack: ServerThread, redis_client: redis.Redis
) -> None:
    before = int(time.time() * 1000)
    ann, bob = sign_up(stack.base, "ann"), sign_up(stack.base, "bob")
    table = ann.post("/api/tables", json={"game": "race", "seats": 2}).json()
    game_id = bob.post(f"/api/tables/{table['table_id']}/join").json()["game_id"]
    (live,) = ann.get("/api/me/games").json()["games"]
    assert live["status"] == "live" and live["winners"] == []
    assert before <= live["created_ms"] <= int(time.time() * 1000)
    play_race_to_the_end([ann, bob], game_id)
    outcome = ann.get(f"/api/games/{game_id}").json()["outcome"]
    for player, seat in ((ann, 0), (bob, 1)):
        (ended,) = player.get("/api/me/games").json()["games"]
        assert (ended["status"], ended["seat"]) == ("finished", seat)
        assert ended["winners"] == outcome["winners"] and ended["winners"]
        assert ended["created_ms"] == live["created_ms"]
    assert redis_client.hget(WINNERS, game_id) is not None  # kept: the next list reads no feed for it


def test_a_kept_winner_record_changed_by_hand_reads_as_none(
    stack: ServerThread, redis_client: redis.Redis
) -> None:
    ann, bob = sign_up(stack.base, "ann"), sign_up(stack.base, "bob")
    table = ann.post("/api/tables", json={"game": "race", "seats": 2}).json()
    game_id = bob.post(f"/api/tables/{table['table_id']}/join").json()["game_id"]
    play_race_to_the_end([ann, bob], game_id)
    redis_client.hset(WINNERS, game_id, b"not json")
    (ended,) = ann.get("/api/me/games").json()["games"]
    assert ended["status"] == "finished" and ended["winners"] == []


def test_a_game_by_links_joins_my_games_unrated(stack: ServerThread, redis_client: redis.Redis) -> None:
    ann, bob = sign_up(stack.base, "ann"), sign_up(stack.base, "bob")
    made = ann.post("/api/games", json={"game": "race", "seats": 2, "names": ["Anna", "Bo"]})
    assert made.status_code == 201, made.text
    game_id, seats = made.json()["game_id"], made.json()["seats"]
    mine = f"/api/games/{game_id}/mine"
    assert ann.post(mine).status_code == 401  # a seat's token says which seat
    assert httpx.post(f"{stack.base}{mine}", headers=bearer(seats[0]["token"])).status_code == 401
    assert ann.post(mine, headers=bearer(seats[1]["token"] + "x")).status_code == 403
    assert ann.post(mine, headers=bearer(seats[0]["token"])).json() == {"game_id": game_id, "seat": 0}
    assert bob.post(mine, headers=bearer(seats[1]["token"])).json()["seat"] == 1
    (anns,) = ann.get("/api/me/games").json()["games"]
    assert (anns["game_id"], anns["seat"], anns["names"]) == (game_id, 0, ["Anna", "Bo"])
    assert anns["created_ms"] > 0
    assert bob.get("/api/me/games").json()["games"][0]["seat"] == 1
    assert redis_client.hgetall(f"hm:{{g:{game_id}}}:accounts") == {}  # not rated: no table seats
    for n in range(MAX_LINKED - 2):  # one link passed round: at most MAX_LINKED accounts keep the game
        extra = sign_up(stack.base, f"p{n}", address=f"127.0.1.{n + 2}")
        assert extra.post(mine, headers=bearer(seats[1]["token"])).status_code == 200
    last = sign_up(stack.base, "late", address="127.0.2.2")
    assert last.post(mine, headers=bearer(seats[1]["token"])).json()["error"] == "too_many_accounts"


def test_the_players_at_an_open_table_chat_before_the_start(stack: ServerThread) -> None:
    ann, bob, cat = sign_up(stack.base, "ann"), sign_up(stack.base, "bob"), sign_up(stack.base, "cat")
    table_id = ann.post("/api/tables", json={"game": "race", "seats": 3}).json()["table_id"]
    chat = f"/api/tables/{table_id}/chat"
    assert cat.post(chat, json={"text": "let me in"}).json()["error"] == "not_seated"
    assert cat.get(chat).status_code == 403 and httpx.get(f"{stack.base}{chat}").status_code == 401
    bob.post(f"/api/tables/{table_id}/join")
    said = bob.post(chat, json={"text": "  hello\u0007 all "})
    assert said.status_code == 201 and (said.json()["author"], said.json()["seat"]) == ("bob", 1)
    assert bob.post(chat, json={"text": ""}).json()["error"] == "empty_chat"
    assert ann.post(chat, json={"text": "x" * 301}).json()["error"] == "chat_too_long"
    assert ann.post(chat, json={"text": "hi bob"}).status_code == 201
    assert [(m["author"], m["text"]) for m in ann.get(chat).json()["messages"]] == [
        ("bob", "hello all"),
        ("ann", "hi bob"),
    ]
    cat.post(f"/api/tables/{table_id}/join")  # the last seat: the game starts
    assert ann.post(chat, json={"text": "too late"}).json()["error"] == "table_closed"
