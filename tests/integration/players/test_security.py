"""Security of accounts and chat on the real stack: passwords are not recoverable from Redis or the logs,
one account's session never acts for another, cross-site writes with the cookie are refused, sign-in is
throttled, and spectators' chat never reaches a tournament game's players while it is played."""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import pytest
import redis
from structlog.testing import capture_logs
from websockets.sync.client import connect

from services import logging as hm_logging
from services.players.settings import PlayerSettings
from tests.support.client import Recorder, bearer, create, play_random, wait_until
from tests.support.harness import ServerThread
from tests.support.players_stack import rated_stack, sign_up

PASSWORD = "Tr0ub4dor&3-unique-marker"
EVIL = "https://evil.example"


@pytest.fixture
def stack(redis_url: str, redis_client: redis.Redis) -> Iterator[ServerThread]:
    with rated_stack(redis_url, players=PlayerSettings(signin_per_name=3, signin_per_address=8)) as server:
        yield server


def every_byte_in(client: redis.Redis) -> bytes:
    """Every key and every value Redis holds, in its serialized form."""
    return b"".join(key + (client.dump(key) or b"") for key in client.scan_iter(count=1000))


def started_race(stack: ServerThread) -> tuple[httpx.Client, httpx.Client, str]:
    ann, bob = sign_up(stack.base, "ann"), sign_up(stack.base, "bob")
    table = ann.post("/api/tables", json={"game": "race", "seats": 2}).json()
    game_id = bob.post(f"/api/tables/{table['table_id']}/join").json()["game_id"]
    return ann, bob, game_id


def test_a_password_is_in_neither_redis_nor_the_logs(
    stack: ServerThread, redis_client: redis.Redis, capfd: pytest.CaptureFixture[str]
) -> None:
    hm_logging.configure("json", "debug", cache=False)  # every line, the sign-in ones included
    try:
        with capture_logs() as logged, httpx.Client(base_url=stack.base) as client:
            assert client.post("/api/accounts", json={"name": "ann", "password": PASSWORD}).status_code == 201
            assert client.post("/api/session", json={"name": "ann", "password": PASSWORD}).status_code == 200
            wrong = client.post("/api/session", json={"name": "ann", "password": PASSWORD + "x"})
            assert wrong.status_code == 401
            session = str(client.cookies["hm_session"])
    finally:
        hm_logging.configure("console", "warning", cache=False)
    stored = every_byte_in(redis_client)
    assert PASSWORD.encode() not in stored and PASSWORD[:12].encode() not in stored
    assert b"$argon2id$" in stored  # what is kept instead
    assert session.encode() not in stored  # only the session's digest is kept
    out, err = capfd.readouterr()
    assert {"account_created", "signed_in", "signin_refused"} <= {entry["event"] for entry in logged}
    assert PASSWORD not in repr(logged) and PASSWORD not in out + err
    assert session not in repr(logged) and session not in out + err


def test_one_accounts_session_never_acts_for_another(stack: ServerThread) -> None:
    ann, bob, game_id = started_race(stack)
    assert ann.get(f"/api/games/{game_id}").json()["viewer"] == 0
    assert bob.get(f"/api/games/{game_id}").json()["viewer"] == 1
    rolled = ann.post(f"/api/games/{game_id}/commands?wait=true", json={"command": {"type": "Roll"}})
    assert rolled.status_code == 200  # seat 0's turn: ann's move, as seat 0
    again = ann.post(f"/api/games/{game_id}/commands?wait=true", json={"command": {"type": "Roll"}})
    assert again.status_code == 409 and again.json()["status"] == "rejected"  # bob's turn: never bob's move
    said = ann.post(f"/api/games/{game_id}/chat", json={"text": "hi"}).json()
    assert (said["author"], said["seat"]) == ("ann", 0)
    with connect(
        f"{stack.ws_base}/ws/games/{game_id}",
        additional_headers={"Cookie": f"hm_session={ann.cookies['hm_session']}"},
    ) as socket:
        assert json.loads(socket.recv())["viewer"] == 0
    forged = httpx.Client(base_url=stack.base, cookies={"hm_session": ann.cookies["hm_session"] + "x"})
    assert forged.get(f"/api/games/{game_id}").json()["viewer"] is None
    assert (
        forged.post(f"/api/games/{game_id}/commands", json={"command": {"type": "Roll"}}).status_code == 401
    )
    cyd = sign_up(stack.base, "cyd")  # signed in, but holds no seat of this game
    assert cyd.post(f"/api/games/{game_id}/commands", json={"command": {"type": "Roll"}}).status_code == 401
    revoked = ann.cookies["hm_session"]
    assert ann.delete("/api/session").status_code == 204  # revoked in Redis, whatever the browser keeps
    kept = httpx.Client(base_url=stack.base, cookies={"hm_session": revoked})
    assert kept.get("/api/session").json() == {"name": None}
    assert kept.post(f"/api/games/{game_id}/commands", json={"command": {"type": "Roll"}}).status_code == 401
    replayed = httpx.Client(base_url=stack.base, cookies={"hm_session": bob.cookies["hm_session"]})
    assert replayed.get("/api/session").json() == {"name": "bob"}


def test_a_cross_site_post_with_the_cookie_is_refused(stack: ServerThread) -> None:
    ann, bob, game_id = started_race(stack)
    cross = {"Origin": EVIL}
    writes = [
        ("post", f"/api/games/{game_id}/commands", {"command": {"type": "Roll"}}),
        ("post", f"/api/games/{game_id}/chat", {"text": "click here"}),
        ("post", "/api/tables", {"game": "race", "seats": 2}),
        ("put", "/api/me/muted/bob", None),
        ("delete", "/api/session", None),
    ]
    for method, path, body in writes:
        refused = ann.request(method, path, json=body, headers=cross)
        assert refused.status_code == 403 and refused.json()["error"] == "cross_site", (path, refused.text)
        no_origin = ann.request(method, path, json=body, headers={"Sec-Fetch-Site": "cross-site"})
        assert no_origin.status_code == 403, path
    assert ann.get(f"/api/games/{game_id}").json()["seq"] == bob.get(f"/api/games/{game_id}").json()["seq"]
    assert ann.get("/api/session").json() == {"name": "ann"}  # the refused sign-out signed nobody out
    assert ann.get("/api/me/muted").json() == {"muted": []}
    same = ann.post(f"/api/games/{game_id}/chat", json={"text": "hello"}, headers={"Origin": stack.base})
    assert same.status_code == 201


def test_sign_in_is_throttled_per_name_and_per_address(stack: ServerThread) -> None:
    sign_up(stack.base, "ann", PASSWORD)
    with httpx.Client(base_url=stack.base) as client:
        answers = [
            client.post("/api/session", json={"name": "ann", "password": "wrong guess"}) for _ in range(3)
        ]
        assert [a.status_code for a in answers] == [401, 401, 401]
        throttled = client.post("/api/session", json={"name": "ann", "password": PASSWORD})
        assert throttled.status_code == 429 and int(throttled.headers["Retry-After"]) >= 1
        assert "account name" in throttled.json()["message"]
        statuses = [
            client.post("/api/session", json={"name": f"u{i}", "password": "whatever1"}).status_code
            for i in range(5)
        ]
        assert (
            statuses[-1] == 429 and 401 in statuses
        )  # the address's window (8, the sign-up counted) ran out


def test_spectators_chat_never_reaches_a_tournament_games_players(stack: ServerThread) -> None:
    """Issue 43, finding 17: the coaching kept from the seat's socket and token reached the same player at
    once when it read anonymously. Now a live tournament game's spectators' chat reaches no reader until
    the game ends, and then every reader."""
    with httpx.Client(base_url=stack.base, timeout=30) as api:
        game = create(api, "race", 2, tournament=True, options={"goal": 3})
    game_id, tokens = game["game_id"], {s["seat"]: s["token"] for s in game["seats"]}
    ws = f"{stack.ws_base}/ws/games/{game_id}"
    player, watcher = Recorder(f"{ws}?token={tokens[0]}"), Recorder(ws)
    fan = sign_up(stack.base, "fan")
    tip = fan.post(f"/api/games/{game_id}/chat", json={"text": "roll now!", "channel": "spectators"})
    assert tip.status_code == 201 and tip.json()["text"] == "roll now!"  # kept, for after the game
    refused = fan.post(f"/api/games/{game_id}/chat", json={"text": "I play too", "channel": "players"})
    assert refused.status_code == 403
    said = httpx.post(
        f"{stack.base}/api/games/{game_id}/chat", json={"text": "gl"}, headers=bearer(tokens[0])
    )
    assert said.status_code == 201 and said.json()["author"] == "Player 1"
    wait_until(lambda: [f["text"] for f in player.frames if f["type"] == "chat"] == ["gl"])
    wait_until(lambda: [f["text"] for f in watcher.frames if f["type"] == "chat"] == ["gl"])
    readers = [bearer(tokens[1]), {}, {"Cookie": f"hm_session={fan.cookies['hm_session']}"}]
    for headers in readers:  # the seat, the same player anonymously, a signed-in spectator: one answer
        read = httpx.get(f"{stack.base}/api/games/{game_id}/chat", headers=headers).json()
        assert [m["text"] for m in read["messages"]] == ["gl"], headers
    with httpx.Client(base_url=stack.base, timeout=30) as api:
        play_random(api, game_id, tokens, seed=3)
    for headers in readers:  # over: the spectators' lines are the record's, read by all
        read = httpx.get(f"{stack.base}/api/games/{game_id}/chat", headers=headers).json()
        assert [m["text"] for m in read["messages"]] == ["roll now!", "gl"], headers
    assert "roll now!" not in [f.get("text") for f in player.frames + watcher.frames]  # never pushed live
    player.close()
    watcher.close()


def test_the_session_cookie_is_httponly_lax_and_secure_when_configured(
    redis_url: str, redis_client: redis.Redis
) -> None:
    for secure in (False, True):
        with rated_stack(redis_url, players=PlayerSettings(secure_cookies=secure)) as stack:
            made = httpx.post(
                f"{stack.base}/api/accounts", json={"name": f"s{int(secure)}", "password": PASSWORD}
            )
            cookie = made.headers["set-cookie"].lower()
            assert cookie.startswith("hm_session=") and "httponly" in cookie and "samesite=lax" in cookie
            assert ("secure" in cookie.split("; ")) is secure
