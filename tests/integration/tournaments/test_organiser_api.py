"""Organiser actions over HTTP (issue 33.10): the tournament's own organiser key (shown once, at creation)
starts, withdraws a player and cancels the tournament; no key, a person's key or another tournament's is refused;
the export of what was done verifies, every organiser decision re-decided."""

from __future__ import annotations

import time
from typing import Any

import httpx

from services import tournament_service as service
from services.audit.tournament_verify import verify_tournament_lines
from services.gateway.context import SEAT_CACHE_S
from tests.support.client import bearer, post_command
from tests.support.pipeline import services_for


def _create(api: httpx.Client, tid: str, players: int = 7) -> dict[str, Any]:
    """Ann and ``players`` random bots at Manila tables of 3 (with 7 bots, one of the 8, drawn, has a bye)."""
    body = {"game": "manila", "players": players, "bots": ["random"], "rounds": 2, "table_size": 3, "id": tid,
            "entrants": [{"name": "ann"}]}  # fmt: skip
    created = api.post("/api/tournaments", json=body)
    assert created.status_code == 201, created.text
    made: dict[str, Any] = created.json()
    return made


def test_the_organiser_key_withdraws_and_cancels_and_nothing_else_does(
    api: httpx.Client, redis_url: str
) -> None:
    made = _create(api, "torg")
    key, person = made["organiser_key"], made["people"][0]["key"]
    other = _create(api, "torg2")["organiser_key"]
    organiser = {"Authorization": f"Bearer {key}"}
    assert api.post("/api/tournaments/torg/start").status_code == 401  # starting needs the key too
    for wrong in (person, other):
        assert api.post("/api/tournaments/torg/start", headers=bearer(wrong)).status_code == 403
    assert api.post("/api/tournaments/torg/start", headers=organiser).status_code == 200
    withdraw = {"player": 3, "reason": "went home"}
    assert api.post("/api/tournaments/torg/withdraw", json=withdraw).status_code == 401
    for wrong in (person, other, "nonsense"):
        refused = api.post(
            "/api/tournaments/torg/withdraw", json=withdraw, headers={"Authorization": f"Bearer {wrong}"}
        )
        assert refused.status_code == 403 and refused.json()["error"] == "organiser_key_required"
    assert api.post("/api/tournaments/torg/withdraw", json=withdraw, headers=organiser).status_code == 200
    again = api.post("/api/tournaments/torg/withdraw", json=withdraw, headers=organiser)
    assert again.status_code == 409 and again.json()["error"] == "tournament.withdrawn"
    assert api.post(
        "/api/tournaments/torg/withdraw", json={"player": "x"}, headers=organiser
    ).status_code in (400, 422)
    rows = api.get("/api/tournaments/torg").json()["standings"]
    assert [r["player"] for r in rows if r["withdrawn"]] == [3]
    cancelled = api.post("/api/tournaments/torg/cancel", json={"reason": "storm"}, headers=organiser)
    assert cancelled.status_code == 200 and cancelled.json()["status"] == "cancelled"
    assert api.post("/api/tournaments/torg/pause", headers=organiser).status_code == 409

    services = services_for(redis_url)
    report = verify_tournament_lines(list(service.export_lines(services, "torg")))
    assert report.ok and report.status == "cancelled", report.problems
    assert report.decisions_checked == 4  # created, started (with round 1), withdrawn, cancelled


def test_the_organiser_gives_a_persons_seat_to_someone_else_mid_game(
    api: httpx.Client, redis_url: str
) -> None:
    made = _create(api, "tswap", players=5)  # Ann and 5 bots at two full tables: no bye to draw
    key, ann = made["organiser_key"], made["people"][0]["key"]
    assert api.post("/api/tournaments/tswap/start", headers=bearer(key)).status_code == 200
    you = api.get("/api/tournaments/tswap", headers={"Authorization": f"Bearer {ann}"}).json()["you"]
    game_id, seat = you["game_id"], you["seat"]
    assert (
        api.get(f"/api/games/{game_id}/legal", headers={"Authorization": f"Bearer {ann}"}).status_code == 200
    )

    organiser = {"Authorization": f"Bearer {key}"}
    assert api.post("/api/tournaments/tswap/replace", json={"player": 0, "name": "zoe"}).status_code == 401
    bot = api.post("/api/tournaments/tswap/replace", json={"player": 1, "name": "zoe"}, headers=organiser)
    assert bot.status_code == 409 and bot.json()["error"] == "tournament.replace_bot"
    swapped = api.post("/api/tournaments/tswap/replace", json={"player": 0, "name": "zoe"}, headers=organiser)
    assert swapped.status_code == 200, swapped.text
    zoe = swapped.json()["people"][0]["key"]
    time.sleep(SEAT_CACHE_S + 0.5)  # what a gateway remembered of the old key lapses
    # The old key opens nothing any more; the new one opens the same seat of the same game.
    assert (
        api.get(f"/api/games/{game_id}/legal", headers={"Authorization": f"Bearer {ann}"}).status_code == 403
    )
    assert api.get("/api/tournaments/tswap", headers={"Authorization": f"Bearer {ann}"}).status_code == 403
    now = api.get("/api/tournaments/tswap", headers={"Authorization": f"Bearer {zoe}"}).json()["you"]
    assert (now["player"], now["game_id"], now["seat"], now["name"]) == (0, game_id, seat, "zoe")
    assert (
        api.get(f"/api/games/{game_id}/legal", headers={"Authorization": f"Bearer {zoe}"}).status_code == 200
    )
    assert api.get(f"/api/games/{game_id}").json()["names"][seat] == "zoe"
    report = verify_tournament_lines(list(service.export_lines(services_for(redis_url), "tswap")))
    assert report.ok, report.problems


def _race_of_three(api: httpx.Client, tid: str) -> dict[str, Any]:
    body = {"game": "race", "rounds": 1, "table_size": 3, "id": tid, "options": {"goal": 6},
            "points": {"3": [3, 1, 0], "2": [2, 0]}, "entrants": [{"name": n} for n in ("ann", "bob", "cy")]}  # fmt: skip
    created = api.post("/api/tournaments", json=body)
    assert created.status_code == 201, created.text
    made: dict[str, Any] = created.json()
    assert api.post(f"/api/tournaments/{tid}/start", headers=bearer(made["organiser_key"])).status_code == 200
    return made


def test_adjudicating_a_table_whose_game_has_ended_is_refused(api: httpx.Client, redis_url: str) -> None:
    """Issue 41.4, the report's case: the organiser ranked [0,6,2] over a finished game that ended 6,2,0,
    and the server answered 200. A game that has ended decided its table: 409, and nothing is recorded."""
    made = _race_of_three(api, "tadj")
    keys = {p["player"]: p["key"] for p in made["people"]}
    you = api.get("/api/tournaments/tadj", headers=bearer(keys[0])).json()["you"]
    game_id = you["game_id"]
    seats = {
        api.get("/api/tournaments/tadj", headers=bearer(k)).json()["you"]["seat"]: k for k in keys.values()
    }
    for _ in range(300):
        game = api.get(f"/api/games/{game_id}").json()
        if not game["to_act"]:
            break
        seat = game["to_act"][0]
        post_command(api, game_id, seats[seat], {"command": {"type": "Roll"}})
    ended = api.get(f"/api/games/{game_id}").json()
    assert ended["to_act"] == [] and ended["status"] == "finished", ended
    organiser = bearer(made["organiser_key"])
    body = {"round": 1, "table": 1, "ranking": [2, 1, 0], "reason": "overrule the dice"}
    refused = api.post("/api/tournaments/tadj/adjudicate", json=body, headers=organiser)
    assert refused.status_code == 409 and refused.json()["error"] == "tournament.game_over", refused.text
    assert "has ended" in refused.json()["message"]
    state = service.load(services_for(redis_url), "tadj")
    result = state.rounds[0].results[0]
    assert result is None or not result.adjudicated  # the result, if any, is the game's own


BAD = ["nul\x00", "esc\x1b[2K\x1b[32mOK", "cr\rOK", "c1\x9b", "rlo\u202etxt", "lri\u2066x\u2069"]
"""Reasons and names of the report: each must be refused (NUL, ESC, CR, a C1 control, bidi controls)."""


def test_reasons_and_names_are_printable_text_and_names_unique(api: httpx.Client) -> None:
    """Issue 41.5: control and bidi characters are refused with 422 naming the rule, in an organiser's
    reasons (withdraw, adjudicate, cancel) and in entrants' names; two entrants may not share a name,
    whatever its case or Unicode composition."""
    made = _race_of_three(api, "ttext")
    organiser = bearer(made["organiser_key"])
    for bad in BAD:
        for verb, body in (("withdraw", {"player": 1, "reason": bad}), ("cancel", {"reason": bad}),
                           ("adjudicate", {"round": 1, "table": 1, "ranking": [0, 1, 2], "reason": bad})):  # fmt: skip
            refused = api.post(f"/api/tournaments/ttext/{verb}", json=body, headers=organiser)
            assert (refused.status_code, refused.json()["error"]) == (422, "tournament.reason"), (verb, bad)
            assert "printable" in refused.json()["message"]
    assert api.get("/api/tournaments/ttext").json()["status"] == "running"  # nothing was done
    base = {"game": "race", "rounds": 1, "table_size": 3, "options": {"goal": 6},
            "points": {"3": [3, 1, 0], "2": [2, 0]}}  # fmt: skip
    for names in ([*BAD[4:5], "b", "c"], ["ann", "ANN", "c"], ["e\u0301", "\u00e9", "c"]):
        refused = api.post("/api/tournaments", json=base | {"entrants": [{"name": n} for n in names]})
        assert (refused.status_code, refused.json()["error"]) == (422, "tournament.name"), names
    taken = api.post("/api/tournaments/ttext/replace", json={"player": 0, "name": "BOB"}, headers=organiser)
    assert (taken.status_code, taken.json()["error"]) == (422, "tournament.name")
