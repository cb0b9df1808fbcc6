"""``/api/tournaments``: create, start, pause, resume and inspect, with bodies that decode as documented."""

from __future__ import annotations

import httpx
import msgspec

from services.gateway.api.tournaments_http import TournamentInfo, TournamentList


def test_create_start_pause_resume_and_inspect(api: httpx.Client) -> None:
    body = {
        "game": "manila",
        "players": 7,
        "bots": ["greedy", "random"],
        "rounds": 2,
        "table_size": 3,
        "id": "tapi",
    }
    created = api.post("/api/tournaments", json=body)
    assert created.status_code == 201, created.text
    info = msgspec.json.decode(created.content, type=TournamentInfo)
    assert info.organiser_key is not None
    organiser = {"Authorization": f"Bearer {info.organiser_key}"}
    assert (info.status, info.players, info.round, info.tie_breaks[0]) == ("created", 7, 0, "points")
    assert api.post("/api/tournaments", json=body).status_code == 409

    started = msgspec.json.decode(
        api.post("/api/tournaments/tapi/start", headers=organiser).content, type=TournamentInfo
    )
    assert (started.status, started.round, started.tables) == ("running", 1, 2)
    full = msgspec.json.decode(api.get("/api/tournaments/tapi").content, type=TournamentInfo)
    assert full.rounds_played is not None and full.standings is not None
    first = full.rounds_played[0]
    assert [t.game_id for t in first.tables] == ["tapi-r1-t1", "tapi-r1-t2"]
    assert len(first.byes) == 1  # 7 players at Manila tables of 3: 3 + 3 and a bye
    assert api.get("/api/games/tapi-r1-t1").status_code == 200  # each table is a game like any other
    assert {"points", "opponents_points", "game_score", "rating"} <= set(
        api.get("/api/tournaments/tapi").json()["standings"][0]
    )

    assert api.post("/api/tournaments/tapi/pause").status_code == 401  # no key, no admin token: refused
    assert api.post("/api/tournaments/tapi/resume", headers=organiser).status_code == 409  # not paused
    assert api.post("/api/tournaments/tapi/pause", headers=organiser).json()["status"] == "paused"
    assert api.post("/api/tournaments/tapi/resume", headers=organiser).json()["status"] == "running"
    listed = msgspec.json.decode(api.get("/api/tournaments").content, type=TournamentList)
    assert [t.tournament_id for t in listed.tournaments] == ["tapi"]


def test_refusals(api: httpx.Client) -> None:
    assert api.get("/api/tournaments/nope").status_code == 404
    assert api.post("/api/tournaments/nope/start").status_code == 404
    too_big = api.post("/api/tournaments", json={"game": "manila", "players": 8, "table_size": 6})
    assert too_big.status_code == 422 and too_big.json()["error"] == "tournament.settings"
    assert api.post("/api/tournaments", json={"game": "chess", "players": 8}).status_code == 422
    assert api.post("/api/tournaments", json={"game": "manila", "colour": "red"}).status_code in (400, 422)
