"""Issue 44: presence from the pages' beats. A seat's beat reads ``online`` (or ``away`` while its page is
hidden); a beat older than ``FRESH_MS`` reads ``away``, older than ``GONE_MS`` ``offline``, none ``offline``;
a spectator cannot beat for a seat; a stored beat that is not one reads as none. Old beats are written into
the hash as they would be found, not waited for."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
import redis

from events.store import now_ms
from services.gateway.api.presence_http import FRESH_MS, GONE_MS, presence_key
from tests.support.harness import ServerThread
from tests.support.players_stack import rated_stack, sign_up


@pytest.fixture
def stack(redis_url: str, redis_client: redis.Redis) -> Iterator[ServerThread]:
    with rated_stack(redis_url) as server:
        yield server


def presences(client: httpx.Client, game_id: str) -> list[str]:
    return [s["presence"] for s in client.get(f"/api/games/{game_id}/presence").json()["seats"]]


def test_beats_read_as_online_away_and_offline(stack: ServerThread, redis_client: redis.Redis) -> None:
    ann, bob, eve = sign_up(stack.base, "ann"), sign_up(stack.base, "bob"), sign_up(stack.base, "eve")
    table = ann.post("/api/tables", json={"game": "race", "seats": 2}).json()
    game_id = bob.post(f"/api/tables/{table['table_id']}/join").json()["game_id"]
    assert presences(eve, game_id) == ["offline", "offline"]  # nobody said anything yet
    assert ann.put(f"/api/games/{game_id}/presence", json={"state": "online"}).status_code == 204
    assert bob.put(f"/api/games/{game_id}/presence", json={"state": "away"}).status_code == 204
    assert presences(eve, game_id) == ["online", "away"]
    assert eve.put(f"/api/games/{game_id}/presence", json={}).status_code == 401  # a spectator has no seat
    bad = ann.put(f"/api/games/{game_id}/presence", json={"state": "asleep"})
    assert (bad.status_code, bad.json()["error"]) == (422, "bad_state")
    assert ann.put(f"/api/games/{game_id}/presence", json={"state": "online", "x": 1}).status_code == 422
    assert eve.get("/api/games/nosuch/presence").status_code == 404
    now = now_ms()
    redis_client.hset(
        presence_key(game_id),
        mapping={"0": f"{now - FRESH_MS - 1000}:online", "1": f"{now - GONE_MS - 1000}:online"},
    )
    assert presences(eve, game_id) == ["away", "offline"]  # a beat or two late; gone
    redis_client.hset(presence_key(game_id), mapping={"0": "garbage", "1": "12:nowhere"})
    assert presences(eve, game_id) == ["offline", "offline"]
    for client in (ann, bob, eve):
        client.close()


def test_a_bots_seat_and_a_resigned_one_read_as_bot(stack: ServerThread) -> None:
    """Issue 44: a bot's seat read "offline" (no page beats for it); it is a bot, as is a resigned seat's
    stand-in (``SeatResigned`` in the log)."""
    ann, bob = sign_up(stack.base, "ann"), sign_up(stack.base, "bob")
    table = ann.post("/api/tables", json={"game": "race", "seats": 3, "bots": ["random"]}).json()
    game_id = bob.post(f"/api/tables/{table['table_id']}/join").json()["game_id"]
    assert presences(ann, game_id) == ["offline", "offline", "bot"]
    assert bob.post(f"/api/games/{game_id}/resign").status_code == 200
    assert presences(ann, game_id) == ["offline", "bot", "bot"]
    for client in (ann, bob):
        client.close()
