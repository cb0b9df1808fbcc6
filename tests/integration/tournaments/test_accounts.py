"""People entrants tied to their accounts: the tournament's games are listed as the accounts' games and
move their ratings like any rated game (the account's one rating per game, across tournaments)."""

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


def test_entrants_tied_to_accounts_are_rated_by_their_tournament_game(stack: ServerThread) -> None:
    spec = {"game": "race", "entrants": [{"name": "Ann"}, {"name": "Bob"}], "players": 1, "bots": ["random"],
            "rounds": 1, "table_size": 3, "options": {"goal": 12}, "id": "tacc"}  # fmt: skip
    with httpx.Client(base_url=stack.base, timeout=30) as api:
        made = api.post("/api/tournaments", json=spec)
        assert made.status_code == 201, made.text
        keys = {p["name"]: p["key"] for p in made.json()["people"]}
        organiser = {"Authorization": f"Bearer {made.json()['organiser_key']}"}
        ann, bob = sign_up(stack.base, "ann"), sign_up(stack.base, "bob")
        tied = ann.post("/api/tournaments/tacc/account", json={"key": keys["Ann"]})
        assert tied.status_code == 200 and tied.json()["game_id"] is None  # no round yet
        taken = bob.post("/api/tournaments/tacc/account", json={"key": keys["Ann"]})
        assert taken.status_code == 409 and taken.json()["error"] == "entrant_claimed"
        wrong = bob.post("/api/tournaments/tacc/account", json={"key": "not a key"})
        assert wrong.status_code == 403
        assert api.post("/api/tournaments/tacc/start", headers=organiser).status_code == 200
        late = bob.post("/api/tournaments/tacc/account", json={"key": keys["Bob"]})  # tied while in play
        assert late.status_code == 200 and late.json()["game_id"] == "tacc-r1-t1"
        again = bob.post("/api/tournaments/tacc/account", json={"key": keys["Ann"]})
        assert again.status_code == 409

        game_id = "tacc-r1-t1"
        assert [g["game_id"] for g in ann.get("/api/me/games").json()["games"]] == [game_id]
        deadline = time.monotonic() + 60
        while (game := api.get(f"/api/games/{game_id}").json())["status"] != "finished":
            assert time.monotonic() < deadline, "the table did not finish"
            for name in ("Ann", "Bob"):
                mine = {"Authorization": f"Bearer {keys[name]}"}
                seat = api.get(f"/api/games/{game_id}", headers=mine).json()["viewer"]
                if game["view"]["turn"] == seat:
                    api.post(
                        f"/api/games/{game_id}/commands?wait=true",
                        headers=mine,
                        json={"command": {"type": "Roll"}},
                    )
            time.sleep(0.02)
        while len(rows := api.get("/api/leaderboards/race").json()["rows"]) < 2:
            assert time.monotonic() < deadline, "the tournament game was not rated"
            time.sleep(0.05)
        assert sorted(r["name"] for r in rows) == ["ann", "bob"]
        history = api.get("/api/accounts/bob").json()["ratings"][0]["history"]
        assert [h["game_id"] for h in history] == [game_id]
        assert history[0]["players"] == 3  # the bot's seat is placed too (issue 44)
