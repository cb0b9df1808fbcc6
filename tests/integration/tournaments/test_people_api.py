"""A person as a tournament entrant: their key (shown once) opens their seat at their table; they play it
over HTTP while server bots play the other seats, and the round closes with them in the standings."""

from __future__ import annotations

import time

import httpx

from services import tournament_service as service
from tests.support.harness import ServerThread
from tests.support.pipeline import services_for


def test_a_person_plays_their_table_over_http_with_their_key(
    api: httpx.Client, stack: ServerThread, redis_url: str
) -> None:
    spec = {"game": "race", "entrants": [{"name": "ann"}], "players": 2, "bots": ["random"], "rounds": 1,
            "table_size": 3, "options": {"goal": 12}, "id": "tpeople"}  # fmt: skip
    created = api.post("/api/tournaments", json=spec)
    assert created.status_code == 201, created.text
    [ann] = created.json()["people"]
    organiser = {"Authorization": f"Bearer {created.json()['organiser_key']}"}
    assert (ann["player"], ann["name"]) == (0, "ann") and len(ann["key"]) >= 32
    assert ann["key"] not in str(stack.app.state.gateway.services.redis.hgetall("hm:{t:tpeople}:people"))
    assert "people" not in api.get("/api/tournaments/tpeople").json()  # shown once, at creation
    assert api.post("/api/tournaments/tpeople/start", headers=organiser).status_code == 200

    mine = api.get("/api/tournaments/tpeople", headers={"Authorization": f"Bearer {ann['key']}"}).json()[
        "you"
    ]
    game_id, seat = mine["game_id"], mine["seat"]
    assert (mine["round"], game_id, mine["finished"]) == (1, "tpeople-r1-t1", False)
    assert mine["link"] == f"/games/{game_id}#token={ann['key']}"
    wrong = api.get("/api/tournaments/tpeople", headers={"Authorization": "Bearer not-a-key"})
    assert wrong.status_code == 403 and wrong.json()["error"] == "wrong_key"
    assert "you" not in api.get("/api/tournaments/tpeople").json()

    token = {"Authorization": f"Bearer {ann['key']}"}
    roll = {"command": {"type": "Roll"}}
    deadline = time.monotonic() + 90
    while (game := api.get(f"/api/games/{game_id}", headers=token).json())["status"] != "finished":
        assert time.monotonic() < deadline, "the table did not finish"
        assert game["viewer"] == seat  # the key is this seat's token in this game
        if game["view"]["turn"] == seat:
            answer = api.post(f"/api/games/{game_id}/commands?wait=true", headers=token, json=roll)
            assert answer.status_code in (200, 422), answer.text  # 422: the race ended first
        time.sleep(0.05)

    services = services_for(redis_url)
    mine_played = [r for r in services.store.records(game_id) if r.seat == seat and r.status == "applied"]
    assert mine_played and all(r.origin == "seat" for r in mine_played)  # ann's own moves, over HTTP
    state = service.reconcile(services, redis_url, "tpeople")  # what serve does now and then
    assert state.status == "finished"
    rows = {row["name"]: row for row in api.get("/api/tournaments/tpeople").json()["standings"]}
    assert rows["ann"]["tables"] == 1 and rows["ann"]["bot"] is None
    done = api.get("/api/tournaments/tpeople", headers=token).json()["you"]
    assert done["finished"] and done["game_id"] == game_id
