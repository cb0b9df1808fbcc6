"""Player names chosen at creation: stored beside the game, given to every viewer and the lobby."""

from __future__ import annotations

import httpx
import pytest
import redis

from events import keys, seat_names
from tests.support.client import create
from workers.jobs.round_open import name_seats


def test_names_are_shown_to_every_viewer_with_defaults_for_the_rest(api: httpx.Client) -> None:
    body = create(api, "race", 3, names=["  Anna  ", ""], bots={"2": "greedy"})
    gid = body["game_id"]
    assert api.get(f"/api/games/{gid}").json()["names"] == ["Anna", "Player 2", "Greedy bot 3"]
    listed = api.get("/api/games", params={"status": "all"}).json()["games"]
    assert next(g for g in listed if g["game_id"] == gid)["names"] == ["Anna", "Player 2", "Greedy bot 3"]


def test_a_game_without_names_gets_defaults(api: httpx.Client) -> None:
    gid = create(api, "race", 2)["game_id"]
    assert api.get(f"/api/games/{gid}").json()["names"] == ["Player 1", "Player 2"]


@pytest.mark.parametrize("names", [["a", "b", "c"], ["x" * 25], ["tab\u0007bell"]])
def test_bad_names_are_refused_before_the_game_exists(api: httpx.Client, names: list[str]) -> None:
    refused = api.post("/api/games", json={"game": "race", "seats": 2, "names": names, "game_id": "named"})
    assert (refused.status_code, refused.json()["error"]) == (422, "bad_names")
    assert api.get("/api/games/named").status_code == 404


def test_a_tournament_writes_a_games_names_as_its_creation_does(
    api: httpx.Client, redis_client: redis.Redis
) -> None:
    """One writer of the field (``events/seat_names.py``): the names a tournament puts on a game's seats
    (``round_open.name_seats``) are the bytes the gateway's creation wrote for the same names."""
    gid = create(api, "race", 2, names=["  Anna  Lena ", "Zoë"])["game_id"]
    field = (keys.spectating(gid), seat_names.FIELD)
    by_creation = redis_client.hget(*field)
    name_seats(redis_client, gid, ["Anna Lena", "\tZoë\u0007"])
    assert redis_client.hget(*field) == by_creation == '["Anna Lena","Zoë"]'.encode()
