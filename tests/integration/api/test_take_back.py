"""Taking back a move over HTTP (issue 44): an El Capitán card bought with one click is taken back before the next
player acts; nobody else may take it back; the take-back is an event of the log, and the finished game's export
verifies, every decision taken again through the take-back. A tournament game refuses it.

Real pieces: the gateway, its fold worker and bot player in threads, on a real Redis (``stack``)."""

from __future__ import annotations

from typing import Any

import httpx

from services.audit.verify import verify_lines
from services.export import export_lines
from tests.conftest import TEST_GAMES
from tests.support.client import bearer, create, play_random, post_command
from tests.support.harness import ServerThread
from tests.support.pipeline import services_for

TAKE_BACK = {"command": {"type": "TakeBack"}}


def _take_back(api: httpx.Client, game_id: str, token: str, final: bool = False) -> dict[str, Any]:
    answer = api.get(
        f"/api/games/{game_id}/undo", params={"final": "1"} if final else {}, headers=bearer(token)
    )
    assert answer.status_code == 200, answer.text
    body: dict[str, Any] = answer.json()
    return body


def _view(api: httpx.Client, game_id: str, token: str) -> Any:
    return api.get(f"/api/games/{game_id}", headers=bearer(token)).json()["view"]


def test_a_bought_card_is_taken_back_and_the_game_verifies(
    stack: ServerThread, api: httpx.Client, redis_url: str
) -> None:
    made = create(api, "elcapitan", 3)
    gid = made["game_id"]
    tokens = {s["seat"]: s["token"] for s in made["seats"]}
    state = api.get(f"/api/games/{gid}").json()
    seat = state["to_act"][0]
    others = [s for s in tokens if s != seat]
    assert _take_back(api, gid, tokens[seat]) == {
        "seq": state["seq"],
        "may": False,
        "allowed": True,
        "final": [],
    }
    before = _view(api, gid, tokens[seat])
    legal = api.get(f"/api/games/{gid}/legal", headers=bearer(tokens[seat])).json()
    buys = [c for c in legal if c["type"] == "BuyCard"]
    final = _take_back(api, gid, tokens[seat], final=True)["final"]
    assert buys and not any(b in final for b in buys), "a card bought is no final move"
    bought = post_command(api, gid, tokens[seat], {"command": buys[0]})
    assert bought.status_code == 200 and bought.json()["status"] == "applied", bought.text
    assert _take_back(api, gid, tokens[seat])["may"]
    for other in others:
        assert not _take_back(api, gid, tokens[other])["may"]
        refused = post_command(api, gid, tokens[other], TAKE_BACK)
        assert refused.status_code == 409 and refused.json()["code"] == "elcapitan.nothing_to_take_back", (
            refused.text
        )
    taken = post_command(api, gid, tokens[seat], TAKE_BACK)
    assert taken.status_code == 200 and taken.json()["status"] == "applied", taken.text
    assert _view(api, gid, tokens[seat]) == before
    assert not _take_back(api, gid, tokens[seat])["may"]
    kinds = [
        e["type"] for e in api.get(f"/api/games/{gid}/events", headers=bearer(tokens[seat])).json()["events"]
    ]
    assert kinds[-3:] == ["MovesBegan", "CardBought", "MovesTakenBack"]  # appended, nothing deleted
    play_random(api, gid, tokens, seed=3)
    assert api.get(f"/api/games/{gid}").json()["status"] == "finished"
    report = verify_lines(list(export_lines(services_for(redis_url).store, gid)), TEST_GAMES)
    assert report.ok and report.decisions_checked and report.finished, report.problems


def test_a_tournament_game_takes_no_move_back(stack: ServerThread, api: httpx.Client) -> None:
    made = create(api, "elcapitan", 3, tournament=True)
    gid = made["game_id"]
    tokens = {s["seat"]: s["token"] for s in made["seats"]}
    seat = api.get(f"/api/games/{gid}").json()["to_act"][0]
    legal = api.get(f"/api/games/{gid}/legal", headers=bearer(tokens[seat])).json()
    buy = next(c for c in legal if c["type"] == "BuyCard")
    assert post_command(api, gid, tokens[seat], {"command": buy}).json()["status"] == "applied"
    answer = _take_back(api, gid, tokens[seat], final=True)
    assert (answer["may"], answer["allowed"]) == (False, False) and answer["final"] == legal_now(
        api, gid, tokens[seat]
    )
    refused = post_command(api, gid, tokens[seat], TAKE_BACK)
    assert refused.status_code == 409 and refused.json()["error"] == "take_back_off", refused.text


def legal_now(api: httpx.Client, game_id: str, token: str) -> Any:
    return api.get(f"/api/games/{game_id}/legal", headers=bearer(token)).json()
