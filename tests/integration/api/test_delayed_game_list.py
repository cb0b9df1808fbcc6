"""Issue 43, finding 17: a delayed spectator of a tournament game saw seq 39 while the public game list
showed the real 45, so the list told spectators how far the players were. The list shows a delayed game
at the seq its spectators may see, by events and by seconds."""

from __future__ import annotations

import httpx

from tests.integration.gateway.test_websocket import notes
from tests.support.client import create
from tests.support.harness import ServerThread


def listed_seq(api: httpx.Client, game_id: str) -> int:
    games = {g["game_id"]: g for g in api.get("/api/games", params={"status": "live"}).json()["games"]}
    seq: int = games[game_id]["seq"]
    return seq


def test_the_public_list_shows_a_delayed_game_where_its_spectators_are(
    stack: ServerThread, api: httpx.Client
) -> None:
    by_events = create(api, "race", 2, tournament=True, spectator_delay=3)
    by_seconds = create(api, "race", 2, tournament=True, spectator_delay_seconds=3600)
    open_game = create(api, "race", 2)
    for game in (by_events, by_seconds, open_game):
        notes(api, game["game_id"], game["seats"][0]["token"], 6)
    for game in (by_events, by_seconds):
        spectators = api.get(f"/api/games/{game['game_id']}").json()["seq"]
        seat = api.get(
            f"/api/games/{game['game_id']}", headers={"Authorization": f"Bearer {game['seats'][0]['token']}"}
        )
        assert seat.json()["seq"] == 7 and spectators < 7  # the attack: the list said 7
        assert listed_seq(api, game["game_id"]) == spectators
    assert listed_seq(api, by_events["game_id"]) == 4
    assert listed_seq(api, by_seconds["game_id"]) == 1  # nothing an hour old yet: the set-up only
    assert listed_seq(api, open_game["game_id"]) == 7  # no delay: the real seq
