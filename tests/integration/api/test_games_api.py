"""The HTTP API against a real Redis with the real fold worker: creation, tokens, commands, refusals."""

from __future__ import annotations

import hashlib
import time

import httpx
import redis

from services.gateway.access.auth import tokens_key
from services.gateway.api.protocol import MAX_BODY
from tests.support.client import bearer, create, post_command
from tests.support.harness import running_stack


def stream_len(redis_client: redis.Redis, game_id: str) -> int:
    return int(redis_client.xlen(f"hm:{{g:{game_id}}}:events"))


def test_create_game_hands_out_a_token_per_seat_and_stores_only_hashes(
    api: httpx.Client, redis_client: redis.Redis
) -> None:
    body = create(api, "race", 3, options={"goal": 20})
    tokens = [s["token"] for s in body["seats"]]
    assert [s["seat"] for s in body["seats"]] == [0, 1, 2]
    assert len(set(tokens)) == 3
    assert body["watch_url"].endswith(f"/games/{body['game_id']}")
    stored = redis_client.hgetall(tokens_key(body["game_id"]))
    assert {k.decode() for k in stored} == {hashlib.sha256(t.encode()).hexdigest() for t in tokens}
    for key in redis_client.scan_iter(f"hm:{{g:{body['game_id']}}}:*"):
        dump = redis_client.dump(key) or b""
        assert not any(t.encode() in dump for t in tokens), f"a raw token is stored in {key!r}"


def test_bot_seats_get_no_token(api: httpx.Client) -> None:
    body = create(api, "race", 2, bots={"1": "random"})
    assert body["seats"][0]["token"]
    assert body["seats"][1] == {"seat": 1, "bot": "random"}


def test_create_game_refusals(api: httpx.Client) -> None:
    assert api.post("/api/games", content=b"{nope").status_code == 400
    unknown = api.post("/api/games", json={"game": "chess", "seats": 2})
    assert unknown.status_code == 422
    assert unknown.json()["error"] == "unknown_game_type"
    seats = api.post("/api/games", json={"game": "race", "seats": 9})
    assert (seats.status_code, seats.json()["error"]) == (422, "race.seat_count")
    option = api.post("/api/games", json={"game": "race", "seats": 2, "options": {"goall": 3}})
    assert (option.status_code, option.json()["error"]) == (422, "race.unknown_option")
    create(api, "race", 2, game_id="taken")
    again = api.post("/api/games", json={"game": "race", "seats": 2, "game_id": "taken"})
    assert (again.status_code, again.json()["error"]) == (409, "game_exists")


def test_admin_token_is_required_when_configured(redis_url: str, redis_client: redis.Redis) -> None:
    with running_stack(redis_url, admin_token="s3cret") as server, httpx.Client(base_url=server.base) as api:
        spec = {"game": "race", "seats": 2}
        assert api.post("/api/games", json=spec).status_code == 401
        assert api.post("/api/games", json=spec, headers=bearer("wrong")).status_code == 403
        assert api.post("/api/games", json=spec, headers=bearer("s3cret")).status_code == 201


def test_every_bad_command_gets_its_4xx_and_changes_nothing(
    api: httpx.Client, redis_client: redis.Redis
) -> None:
    game = create(api, "race", 2)
    other = create(api, "race", 2)
    gid = game["game_id"]
    t0, t1 = game["seats"][0]["token"], game["seats"][1]["token"]
    before = stream_len(redis_client, gid)
    cases = [
        ("another seat's token", t1, {"command": {"type": "Roll"}}, 409, "race.not_your_turn"),
        ("missing token", None, {"command": {"type": "Roll"}}, 401, "missing_token"),
        (
            "another game's token",
            other["seats"][0]["token"],
            {"command": {"type": "Roll"}},
            403,
            "wrong_token",
        ),
        ("malformed body", t0, b'{"command": ', 400, "malformed_body"),
        ("body of the wrong shape", t0, {"cmd": {"type": "Roll"}}, 422, "invalid_body"),
        ("unknown command type", t0, {"command": {"type": "Teleport"}}, 422, "invalid_command"),
        (
            "oversized message",
            t0,
            {"command": {"type": "Note", "text": "x" * (MAX_BODY + 1)}},
            413,
            "too_large",
        ),
        ("illegal move", t0, {"command": {"type": "Note", "text": "y" * 101}}, 409, "race.note_too_long"),
    ]
    for name, token, body, status, code in cases:
        response = post_command(api, gid, token, body)
        assert response.status_code == status, (name, response.text)
        assert response.json()["error"] == code, name
        assert set(response.json()) >= {"error", "message"}, name
    assert stream_len(redis_client, gid) == before
    assert api.get(f"/api/games/{gid}").json()["seq"] == before
    ok = post_command(api, gid, t0, {"command": {"type": "Roll"}})
    assert (ok.status_code, ok.json()["status"], ok.json()["seq"]) == (200, "applied", before + 1)


def test_rejected_command_body_has_status_code_and_message(api: httpx.Client) -> None:
    game = create(api, "race", 2)
    response = post_command(api, game["game_id"], game["seats"][1]["token"], {"command": {"type": "Roll"}})
    body = response.json()
    assert body["status"] == "rejected"
    assert body["code"] == "race.not_your_turn"
    assert "seat 0" in body["message"]


def test_command_without_wait_is_accepted_and_its_outcome_recorded(api: httpx.Client) -> None:
    game = create(api, "race", 2)
    gid, token = game["game_id"], game["seats"][0]["token"]
    response = post_command(api, gid, token, {"command_id": "c-1", "command": {"type": "Roll"}}, wait=False)
    assert response.status_code == 202
    assert response.json() == {"command_id": "c-1", "status": "pending"}
    deadline = time.monotonic() + 10
    auth = {"Authorization": f"Bearer {token}"}
    while (result := api.get(f"/api/games/{gid}/commands/c-1", headers=auth).json())["status"] == "pending":
        assert time.monotonic() < deadline
        time.sleep(0.02)
    assert result == {"command_id": "c-1", "status": "applied", "seq": 2, "first_seq": 2}


def test_the_same_command_id_is_applied_once(api: httpx.Client, redis_client: redis.Redis) -> None:
    game = create(api, "race", 2)
    gid, token = game["game_id"], game["seats"][0]["token"]
    first = post_command(api, gid, token, {"command_id": "same", "command": {"type": "Note", "text": "a"}})
    second = post_command(api, gid, token, {"command_id": "same", "command": {"type": "Note", "text": "a"}})
    assert first.json() == second.json()
    assert stream_len(redis_client, gid) == 2


def test_view_legal_and_events_per_viewer(api: httpx.Client) -> None:
    game = create(api, "race", 2)
    gid, t0, t1 = game["game_id"], game["seats"][0]["token"], game["seats"][1]["token"]
    assert api.get(f"/api/games/{gid}/legal", headers=bearer(t0)).json() == [{"type": "Roll"}]
    assert api.get(f"/api/games/{gid}/legal", headers=bearer(t1)).json() == []
    assert api.get(f"/api/games/{gid}/legal").status_code == 401
    assert api.get(f"/api/games/{gid}", headers=bearer("nope")).status_code == 403
    post_command(api, gid, t0, {"command": {"type": "Roll"}})
    seat_view = api.get(f"/api/games/{gid}", headers=bearer(t0)).json()
    assert (seat_view["viewer"], seat_view["seq"], seat_view["to_act"]) == (0, 2, [1])
    spectator = api.get(f"/api/games/{gid}").json()
    assert spectator["viewer"] is None
    page = api.get(f"/api/games/{gid}/events", params={"from": 1}).json()
    assert [e["seq"] for e in page["events"]] == [2]
    assert page["events"][0]["event"]["type"] == "Rolled"
    earlier = api.get(f"/api/games/{gid}", params={"at": 1}).json()
    assert earlier["seq"] == 1 and earlier["view"]["positions"] == [0, 0]
    assert api.get(f"/api/games/{gid}", params={"at": 9}).status_code == 400
    assert api.get("/api/games/nope").status_code == 404
    assert api.get("/api/games/nope").json()["error"] == "unknown_game"


def test_games_are_listed_newest_first_and_paged(api: httpx.Client) -> None:
    ids = [create(api, "race", 1, options={"goal": 1})["game_id"] for _ in range(3)]
    first = api.get("/api/games", params={"limit": 2}).json()
    assert [g["game_id"] for g in first["games"]] == ids[::-1][:2]
    assert first["next_offset"] == 2
    rest = api.get("/api/games", params={"limit": 2, "offset": 2}).json()
    assert [g["game_id"] for g in rest["games"]] == ids[:1] and rest["next_offset"] is None
    winner = create(api, "race", 1, options={"goal": 1})
    post_command(api, winner["game_id"], winner["seats"][0]["token"], {"command": {"type": "Roll"}})
    finished = api.get("/api/games", params={"status": "finished"}).json()["games"]
    assert [g["game_id"] for g in finished] == [winner["game_id"]]
    live = api.get("/api/games", params={"status": "live"}).json()["games"]
    assert winner["game_id"] not in {g["game_id"] for g in live}
    assert api.get("/api/games", params={"status": "odd"}).status_code == 400


def test_a_finished_game_refuses_commands_and_shows_every_event(api: httpx.Client) -> None:
    game = create(api, "race", 1, options={"goal": 1})
    gid, token = game["game_id"], game["seats"][0]["token"]
    assert post_command(api, gid, token, {"command": {"type": "Roll"}}).json()["status"] == "applied"
    late = post_command(api, gid, token, {"command": {"type": "Roll"}})
    assert (late.status_code, late.json()["error"]) == (409, "game_finished")
    page = api.get(f"/api/games/{gid}/events").json()
    assert page["redacted"] is False
    assert [e["type"] for e in page["events"]] == ["RaceStarted", "Rolled", "RaceWon"]


def test_healthz_and_metrics(api: httpx.Client) -> None:
    assert api.get("/healthz").json()["status"] == "ok"
    game = create(api, "race", 2)
    post_command(api, game["game_id"], game["seats"][1]["token"], {"command": {"type": "Roll"}})
    # The worker counts a result just after recording it: the counter is eventually, not instantly, there.
    deadline = time.monotonic() + 10
    text = api.get("/metrics").text
    while "harbormaster_command_rejections_total 1" not in text and time.monotonic() < deadline:
        time.sleep(0.05)
        text = api.get("/metrics").text
    for name in (
        "harbormaster_commands_total",
        "harbormaster_command_rejections_total 1",
        "harbormaster_fold_latency_seconds_bucket",
        "harbormaster_stream_lag_commands",
        "harbormaster_open_websockets 0",
        "harbormaster_commands_per_second",
    ):
        assert name in text


def test_tokens_minted_outside_the_gateway_work(api: httpx.Client, redis_client: redis.Redis) -> None:
    """``auth.mint_tokens`` lets the CLI hand out seats of games it created itself."""
    from services.gateway.access.auth import mint_tokens

    game = create(api, "race", 2)
    extra = mint_tokens(redis_client, game["game_id"], [0])
    response = post_command(api, game["game_id"], extra[0], {"command": {"type": "Roll"}})
    assert response.json()["status"] == "applied"


def test_one_process_can_run_a_gateway_and_a_fold_worker_side_by_side(
    redis_url: str, redis_client: redis.Redis
) -> None:
    """The gateway builds no fold worker (issue 34); one process that starts both is enough to play."""
    from tests.support.harness import ServerThread, WorkerThread
    from tests.support.pipeline import services_for

    server, worker = ServerThread(services_for(redis_url), redis_url), WorkerThread(redis_url)
    server.start()
    worker.start()
    try:
        with httpx.Client(base_url=server.base) as api:
            game = create(api, "race", 1)
            response = post_command(
                api, game["game_id"], game["seats"][0]["token"], {"command": {"type": "Roll"}}
            )
            assert response.json()["status"] == "applied"
    finally:
        worker.stop()
        server.stop()
