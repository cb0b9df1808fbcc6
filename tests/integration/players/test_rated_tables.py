"""Ratings people trust (issue 44, findings 5 and 9), through the real stack: tables opened and joined over
HTTP, games played by the fold worker with its rating hook, read back from the API and the log's queue.

The test race with ``goal`` 1 ends at its first roll: seat 0 wins and every other seat stays on 0, level, with
no tie-break named, so they share second place."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import redis

from events import keys
from events.tlog import leaves
from tests.integration.players.test_players_api import play_race_to_the_end
from tests.support.harness import ServerThread
from tests.support.players_stack import rated_stack, sign_up
from workers.jobs.account_ratings import game_changes_key, history_key, ratings_key
from workers.jobs.clock import claim_timeouts


@pytest.fixture
def stack(redis_url: str, redis_client: redis.Redis) -> Iterator[ServerThread]:
    with rated_stack(redis_url) as server:
        yield server


def race(clients: list[httpx.Client], goal: int = 1, bots: tuple[str, ...] = ()) -> str:
    """A rated race table of the clients (the first opens it, the others join), played to its end."""
    seats = len(clients) + len(bots)
    table = clients[0].post("/api/tables", json={"game": "race", "seats": seats, "options": {"goal": goal},
                                                 "bots": list(bots)}).json()  # fmt: skip
    joined: dict[str, Any] = table
    for client in clients[1:]:
        joined = client.post(f"/api/tables/{table['table_id']}/join").json()
    game_id: str = joined["game_id"]
    play_race_to_the_end(clients, game_id)
    return game_id


def ratings_of(base: str, game_id: str) -> dict[str, Any]:
    """The game's ratings once its rating hook has decided (rated or unrated)."""
    deadline = time.monotonic() + 20
    while (body := httpx.get(f"{base}/api/games/{game_id}/ratings").json())["status"] == "pending":
        assert time.monotonic() < deadline, "the game was never rated"
        time.sleep(0.05)
    result: dict[str, Any] = body
    return result


def queued_ratings(client: redis.Redis, game_id: str) -> list[leaves.Rating]:
    entries: list[tuple[bytes, dict[bytes, bytes]]] = client.xrange(keys.LOG_QUEUE)  # type: ignore[assignment]
    found = [leaves.decode(fields[b"leaf"]) for _, fields in entries]
    return [leaf for leaf in found if isinstance(leaf, leaves.Rating) and leaf.game_id == game_id]


def test_a_tie_for_second_is_shared_and_rated_equally(stack: ServerThread, redis_client: redis.Redis) -> None:
    ann, bob, cy = (sign_up(stack.base, n) for n in ("ann", "bob", "cy"))
    game_id = race([ann, bob, cy])
    body = ratings_of(stack.base, game_id)
    assert body["status"] == "rated"
    rows = {r["account"]: r for r in body["changes"]}
    assert [(rows[n]["place"], rows[n]["tied"], rows[n]["players"]) for n in ("ann", "bob", "cy")] == [
        (0, False, 3),
        (1, True, 3),
        (1, True, 3),
    ]
    assert rows["bob"]["change"] == rows["cy"]["change"] < 0 < rows["ann"]["change"]
    assert rows["ann"]["before"] == 1500 and rows["ann"]["provisional"] and rows["ann"]["rules"] == 2
    history = httpx.get(f"{stack.base}/api/accounts/cy").json()["ratings"][0]
    assert history["shown"] == rows["cy"]["after"] and history["games"] == 1 and history["provisional"]
    assert history["history"][0]["tied"] and history["history"][0]["place"] == 1
    logged = {leaf.account: leaf for leaf in queued_ratings(redis_client, game_id)}
    assert {a: (leaf.place, leaf.rules) for a, leaf in logged.items()} == {
        "ann": (0, 2),
        "bob": (1, 2),
        "cy": (1, 2),
    }
    assert logged["bob"].mu == logged["cy"].mu == rows["bob"]["mu_after"]


def test_a_bot_is_placed_with_the_players(stack: ServerThread) -> None:
    """Finding 5: the bot's seat counts. Bob and the bot both stayed on 0: second of three, shared with it."""
    ann, bob = sign_up(stack.base, "ann"), sign_up(stack.base, "bob")
    rows = {r["account"]: r for r in ratings_of(stack.base, race([ann, bob], bots=("greedy",)))["changes"]}
    assert (rows["bob"]["place"], rows["bob"]["tied"], rows["bob"]["players"]) == (1, True, 3)


def test_accounts_on_one_address_do_not_rate_each_other(stack: ServerThread) -> None:
    """Finding 9: one person's two accounts on one address farm nothing."""
    ann = sign_up(stack.base, "ann", address="127.0.2.7")
    alt = sign_up(stack.base, "ann2", address="127.0.2.7")
    game_id = race([ann, alt])
    assert ratings_of(stack.base, game_id) == {
        "game_id": game_id,
        "status": "unrated",
        "reason": "accounts seen on one address are not rated against each other",
        "changes": [],
    }
    assert httpx.get(f"{stack.base}/api/leaderboards/race").json()["rows"] == []


def test_the_same_two_accounts_again_within_a_day_count_half(stack: ServerThread) -> None:
    ann, bob = sign_up(stack.base, "ann"), sign_up(stack.base, "bob")
    first = {r["account"]: r for r in ratings_of(stack.base, race([ann, bob]))["changes"]}
    second = {r["account"]: r for r in ratings_of(stack.base, race([ann, bob]))["changes"]}
    third = {r["account"]: r for r in ratings_of(stack.base, race([bob, ann]))["changes"]}  # bob opens: wins
    assert (first["ann"]["weight"], second["ann"]["weight"], third["bob"]["weight"]) == (1.0, 0.5, 1 / 3)
    assert 0 < second["ann"]["change"] < first["ann"]["change"]
    assert second["ann"]["before"] == first["ann"]["after"]


def test_a_player_who_stops_is_rated_last(stack: ServerThread) -> None:
    """Finding 9: ann stops moving; the clock plays her turns (as a table's idle clock does) and she is placed
    last, though her rolls, played for her, may have won the race."""
    ann, bob = sign_up(stack.base, "ann"), sign_up(stack.base, "bob")
    table = ann.post("/api/tables", json={"game": "race", "seats": 2, "options": {"goal": 8}}).json()
    game_id = bob.post(f"/api/tables/{table['table_id']}/join").json()["game_id"]
    services = stack.worker.services if stack.worker is not None else None
    assert services is not None
    while (state := bob.get(f"/api/games/{game_id}").json())["status"] != "finished":
        if state["to_act"] == [1]:
            bob.post(f"/api/games/{game_id}/commands?wait=true", json={"command": {"type": "Roll"}})
        else:  # ann's turn: out of time at once
            claim_timeouts(
                services.store, services.bus, [game_id], limit_ms=0, now_ms=int(time.time() * 1000)
            )
            time.sleep(0.02)
    rows = {r["account"]: r for r in ratings_of(stack.base, game_id)["changes"]}
    assert (rows["ann"]["place"], rows["ann"]["abandoned"]) == (1, True)
    assert (rows["bob"]["place"], rows["bob"]["abandoned"]) == (0, False)
    assert rows["ann"]["change"] < 0 < rows["bob"]["change"]


def test_a_live_game_is_pending_and_an_unknown_one_404(stack: ServerThread) -> None:
    ann, bob = sign_up(stack.base, "ann"), sign_up(stack.base, "bob")
    table = ann.post("/api/tables", json={"game": "race", "seats": 2}).json()
    game_id = bob.post(f"/api/tables/{table['table_id']}/join").json()["game_id"]
    assert httpx.get(f"{stack.base}/api/games/{game_id}/ratings").json()["status"] == "pending"
    assert httpx.get(f"{stack.base}/api/games/nope/ratings").status_code == 404
    assert httpx.get(f"{stack.base}/api/games/{'x' * 500}/ratings").status_code == 404
    for odd in ("%7Bg:x%7D", "%C2%B2", "%00", "..%2F..", "a%20b"):
        answer = httpx.get(f"{stack.base}/api/games/{odd}/ratings")
        assert answer.status_code == 404 and answer.json()["error"] in ("unknown_game", "not_found"), odd
    assert httpx.post(f"{stack.base}/api/games/{game_id}/ratings").status_code == 405


def test_stored_ratings_that_are_not_ones_fail_no_page(
    stack: ServerThread, redis_client: redis.Redis
) -> None:
    ann, bob = sign_up(stack.base, "ann"), sign_up(stack.base, "bob")
    game_id = race([ann, bob])
    assert ratings_of(stack.base, game_id)["status"] == "rated"
    redis_client.hset(ratings_key("race"), "ann", b"not json")
    redis_client.lpush(history_key("race", "ann"), b'{"game_id": 5}')
    redis_client.hset(game_changes_key("race", game_id), "bob", b"\xff")
    page = httpx.get(f"{stack.base}/api/accounts/ann")
    assert page.status_code == 200 and page.json()["ratings"][0]["shown"] == 1500  # read as a new account's
    assert [h["game_id"] for h in page.json()["ratings"][0]["history"]] == [game_id]  # the bad entry skipped
    changes = httpx.get(f"{stack.base}/api/games/{game_id}/ratings").json()["changes"]
    assert [c["account"] for c in changes] == ["ann"]
    assert httpx.get(f"{stack.base}/api/leaderboards/race").status_code == 200
    rows = {r["account"]: r for r in ratings_of(stack.base, race([bob, ann]))["changes"]}  # rated again
    assert rows["ann"]["before"] == 1500 and rows["ann"]["weight"] == 0.5
