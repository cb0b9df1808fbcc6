"""Issue 33's acceptance scenario against a real ``harbormaster serve``, over HTTP as an organiser and two
people would act: a Swiss of two people and two bots under a short move clock. Ann never moves; Bob
plays until the organiser gives his seat to Zoe mid-game, Zoe finishes it and is withdrawn after round 1.
The tournament finishes under ``serve`` alone: Ann is forfeited as a no-show at each of her tables and never
rated, player 1 is never paired again and keeps round 1's result, and the export verifies."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from domain.tournament import Rating, TableFinished
from events.tournament_store import TournamentStore, decode
from services import tournament_service as service
from services.audit.tournament_verify import verify_tournament_lines
from services.bootstrap import Services
from services.redis_launcher import free_port, running_url
from tests.support.client import bearer
from tests.support.pipeline import TEST_PLUGINS, services_for, stop_serve

TID = "accept"
SPEC = {"game": "race", "format": "swiss", "entrants": [{"name": "ann"}, {"name": "bob"}], "players": 4,
        "bots": ["random"], "rounds": 2, "table_size": 2, "options": {"goal": 13},
        "points": {"2": [6, 1], "1": [6]}, "move_limit_s": 0.5, "id": TID}  # fmt: skip
"""Goal 13: a bot cannot reach it in two rolls, so the game Bob has just moved in is still on when the
organiser replaces him; a half-second limit makes each of Ann's timeouts come at serve's next pass."""


@dataclass
class Serve:
    api: httpx.Client
    data: Path


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Serve]:
    """A ``serve`` with the test race among its games (no demo), once it answers."""
    port = free_port()
    env = {**os.environ, "HARBORMASTER_DATA": str(tmp_path), "HARBORMASTER_GAME_PLUGINS": TEST_PLUGINS}
    env.pop("REDIS_URL", None)
    log = tmp_path / "serve.log"
    with open(log, "wb") as out:  # a file nobody has to read for serve to go on
        process = subprocess.Popen(
            [sys.executable, "-m", "services.cli", "serve", "--port", str(port)],
            env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
    api = httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30)
    try:
        _wait(lambda: _healthy(api) or process.poll() is not None, 60, "serve never answered")
        assert process.poll() is None, log.read_text(errors="replace")[-3000:]
        yield Serve(api=api, data=tmp_path)
        assert process.poll() is None, "serve exited during the tournament"
    finally:
        api.close()
        stop_serve(process, tmp_path)


def _healthy(api: httpx.Client) -> bool:
    try:
        return api.get("/healthz").status_code == 200
    except httpx.HTTPError:
        return False


def _wait(done: Callable[[], bool], seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not done():
        assert time.monotonic() < deadline, what
        time.sleep(0.2)


def _table(api: httpx.Client, key: str) -> dict[str, Any]:
    """The person's current table (``you``), as their own page fetches it."""
    answer = api.get(f"/api/tournaments/{TID}", headers=bearer(key))
    assert answer.status_code == 200, answer.text
    you: dict[str, Any] = answer.json()["you"]
    return you


def _my_turn(api: httpx.Client, game_id: str, seat: int) -> bool:
    game = api.get(f"/api/games/{game_id}").json()
    return game["status"] == "live" and seat in game["to_act"]


def _roll(api: httpx.Client, game_id: str, key: str) -> None:
    command = api.get(f"/api/games/{game_id}/legal", headers=bearer(key)).json()[0]
    moved = api.post(
        f"/api/games/{game_id}/commands?wait=true", json={"command": command}, headers=bearer(key)
    )
    assert moved.status_code == 200, moved.text


def _replace_bob_mid_game(api: httpx.Client, organiser: dict[str, str], bob: str) -> tuple[str, str, int]:
    """Bob moves once; the organiser gives his seat to Zoe; returns Zoe's key, the game and the seat."""
    table = _table(api, bob)
    game_id, seat = table["game_id"], table["seat"]
    _wait(lambda: _my_turn(api, game_id, seat), 30, "Bob's turn never came")
    _roll(api, game_id, bob)
    swapped = api.post(
        f"/api/tournaments/{TID}/replace", json={"player": 1, "name": "zoe"}, headers=organiser
    )
    assert swapped.status_code == 200, swapped.text
    assert api.get(f"/api/games/{game_id}").json()["status"] == "live"  # mid-game
    assert api.get(f"/api/tournaments/{TID}", headers=bearer(bob)).status_code == 403  # his key is gone
    zoe: str = swapped.json()["people"][0]["key"]
    assert (_table(api, zoe)["game_id"], _table(api, zoe)["seat"]) == (game_id, seat)
    return zoe, game_id, seat


def _play_out(api: httpx.Client, game_id: str, seat: int, key: str) -> None:
    deadline = time.monotonic() + 30
    while (game := api.get(f"/api/games/{game_id}").json())["status"] == "live":
        assert time.monotonic() < deadline, "Zoe's game never ended"
        if seat in game["to_act"]:
            _roll(api, game_id, key)
        time.sleep(0.05)


def test_a_no_show_a_replaced_seat_and_a_withdrawal_finish_under_serve(serve: Serve) -> None:
    api = serve.api
    created = api.post("/api/tournaments", json=SPEC)
    assert created.status_code == 201, created.text
    organiser = bearer(created.json()["organiser_key"])
    keys = {p["name"]: p["key"] for p in created.json()["people"]}
    assert api.post(f"/api/tournaments/{TID}/start", headers=bearer(keys["ann"])).status_code == 403
    assert api.post(f"/api/tournaments/{TID}/start", headers=organiser).status_code == 200
    # Paused: round 1's games go on, but round 2 waits until player 1 is withdrawn.
    assert api.post(f"/api/tournaments/{TID}/pause", headers=organiser).json()["status"] == "paused"

    zoe, game_id, seat = _replace_bob_mid_game(api, organiser, keys["bob"])
    _play_out(api, game_id, seat, zoe)
    withdraw = {"player": 1, "reason": "leaves after round 1"}
    assert api.post(f"/api/tournaments/{TID}/withdraw", json=withdraw, headers=organiser).status_code == 200
    assert api.post(f"/api/tournaments/{TID}/resume", headers=organiser).json()["status"] == "running"
    _wait(lambda: api.get(f"/api/tournaments/{TID}").json()["status"] == "finished", 50, "never finished")

    info = api.get(f"/api/tournaments/{TID}").json()
    rows = {row["player"]: row for row in info["standings"]}
    assert (rows[1]["name"], rows[1]["withdrawn"], rows[1]["tables"]) == ("zoe", True, 1)  # round 1 kept
    second = info["rounds_played"][1]
    assert all(1 not in t["players"] for t in second["tables"]) and 1 not in second["byes"]
    assert "ann" not in info["winners"] and "zoe" not in info["winners"]

    url = running_url(serve.data)
    assert url is not None
    services = services_for(url)
    assert service.load(services, TID).ratings[0] == Rating()  # Ann: not rated for games she never played
    _assert_no_show_forfeited(services)
    report = verify_tournament_lines(list(service.export_lines(services, TID)))
    assert report.ok and report.status == "finished", report.problems


def _assert_no_show_forfeited(services: Services) -> None:
    results = [
        e for e in map(decode, TournamentStore(services.redis).envelopes(TID)) if isinstance(e, TableFinished)
    ]
    ann_tables = [r for r in results if 0 in r.ranking]
    assert ann_tables  # she sat at a table at least in round 1
    for result in ann_tables:  # a no-show at each: forfeited, ranked last
        assert 0 in result.absent and 0 in result.forfeits and result.ranking[-1] == 0
