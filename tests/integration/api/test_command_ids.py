"""Command ids are scoped to their sender (issue 17, findings 1 and 6), over the real stack and Redis.

A player's id is its seat's own: it can neither take a bot's or the server's id nor another seat's, and the
results hash's bookkeeping fields are not command ids.
"""

from __future__ import annotations

import json

import httpx
import redis
from websockets.sync.client import connect

from events import keys
from tests.support.client import bearer, create, post_command
from tests.support.harness import ServerThread
from tests.support.pipeline import eventually
from workers.jobs.bots import bot_command_id

TOO_LONG_NOTE = {"type": "Note", "text": "x" * 101}
"""A command the race game refuses on any turn (race.note_too_long): the attacker's filler."""


def _state(api: httpx.Client, game_id: str) -> dict[str, object]:
    body: dict[str, object] = api.get(f"/api/games/{game_id}").json()
    return body


def test_a_player_cannot_freeze_a_bot_by_taking_its_command_ids(
    api: httpx.Client, redis_client: redis.Redis
) -> None:
    game = create(api, "race", 2, options={"goal": 10_000}, bots={"1": "random"})
    gid, token = game["game_id"], game["seats"][0]["token"]
    seed = redis_client.hget(keys.meta(gid), "seed")
    assert isinstance(seed, bytes)
    # The attack of the finding: seat 0 records refusals under every id the bot would use next, the old
    # predictable ones and even the real ones (keyed with the game's secret seed, which no player has).
    # Since issue 41.3 the bots' ids are the server's: refused before they reach the rules.
    for seq in range(2, 13):
        for command_id in (f"bot-{seq}-1", bot_command_id(seed, seq, 1)):
            refused = post_command(api, gid, token, {"command_id": command_id, "command": TOO_LONG_NOTE})
            assert (refused.status_code, refused.json()["error"]) == (400, "reserved_command_id")
    for round_no in range(5):
        rolled = post_command(api, gid, token, {"command": {"type": "Roll"}})
        assert (rolled.status_code, rolled.json()["seq"]) == (200, 2 + 2 * round_no)
        eventually(lambda: _state(api, gid)["to_act"] == [0], timeout=20, message="the bot's move")
    assert _state(api, gid)["seq"] == 11
    fields = [field for field in redis_client.hkeys(keys.results(gid)) if isinstance(field, bytes)]
    assert sum(field.startswith(b"bot1/bot-") for field in fields) == 5
    assert not [field for field in fields if field.startswith(b"seat0/bot-")]


def test_a_person_cannot_send_her_moves_as_the_clock_s_timeouts(
    stack: ServerThread, api: httpx.Client, redis_client: redis.Redis
) -> None:
    """Issue 41.3, the report's case: a person sent all her moves with ids ``timeout-p{n}-0-mine``, the log
    read each as the clock's, and she was recorded absent and forfeited. Every reserved prefix, in any
    case, over HTTP and the WebSocket, is refused naming the rule, and changes nothing."""
    game = create(api, "race", 2)
    gid, token = game["game_id"], game["seats"][0]["token"]
    before = (redis_client.xlen(keys.events(gid)), redis_client.hlen(keys.results(gid)))
    for command_id in ("timeout-p1-0-mine", "timeout-p2-0-mine", "TIMEOUT-3-0-x", "bot-2-0-mine", "setup-x"):
        refused = post_command(api, gid, token, {"command_id": command_id, "command": {"type": "Roll"}})
        assert (refused.status_code, refused.json()["error"]) == (400, "reserved_command_id")
        assert "reserved for the server" in refused.json()["message"]
        frame = _move_over_socket(stack, gid, token, command_id)
        assert (frame["status"], frame["code"]) == ("rejected", "reserved_command_id")
    assert (redis_client.xlen(keys.events(gid)), redis_client.hlen(keys.results(gid))) == before
    mine = post_command(api, gid, token, {"command_id": "p1-0-mine", "command": {"type": "Roll"}})
    assert (mine.status_code, mine.json()["status"]) == (200, "applied")  # her own ids are hers


def test_setup_is_an_ordinary_client_command_id(api: httpx.Client, redis_client: redis.Redis) -> None:
    game = create(api, "race", 2)
    gid, token = game["game_id"], game["seats"][0]["token"]
    before = redis_client.xlen(keys.events(gid))
    response = post_command(api, gid, token, {"command_id": "setup", "command": {"type": "Roll"}})
    assert (response.status_code, response.json()["status"]) == (200, "applied")
    assert response.json()["seq"] == before + 1
    assert redis_client.xlen(keys.events(gid)) == before + 1
    assert _state(api, gid)["to_act"] == [1]


def test_another_seat_reusing_an_id_sends_its_own_command(api: httpx.Client) -> None:
    game = create(api, "race", 2)
    gid = game["game_id"]
    t0, t1 = game["seats"][0]["token"], game["seats"][1]["token"]
    first = post_command(api, gid, t0, {"command_id": "move", "command": {"type": "Roll"}})
    second = post_command(api, gid, t1, {"command_id": "move", "command": {"type": "Roll"}})
    assert (first.status_code, first.json()["seq"]) == (200, 2)
    assert (second.status_code, second.json()["seq"]) == (200, 3)
    again = post_command(api, gid, t0, {"command_id": "move", "command": {"type": "Roll"}})
    assert again.json() == first.json()  # the same sender and id: reported, never applied twice
    for token, seq in ((t0, 2), (t1, 3)):
        outcome = api.get(f"/api/games/{gid}/commands/move", headers=bearer(token)).json()
        assert (outcome["status"], outcome["seq"]) == ("applied", seq)


def test_bookkeeping_fields_are_not_command_ids(api: httpx.Client) -> None:
    game = create(api, "race", 2)
    gid, token = game["game_id"], game["seats"][0]["token"]
    for headers in ({}, bearer(token)):
        response = api.get(f"/api/games/{gid}/commands/@position", headers=headers)
        assert (response.status_code, response.json()["error"]) == (404, "unknown_command")
    unknown_game = api.get("/api/games/nope/commands/c1", headers=bearer(token))
    assert (unknown_game.status_code, unknown_game.json()["error"]) == (404, "unknown_game")
    anonymous = api.get(f"/api/games/{gid}/commands/c1")
    assert (anonymous.status_code, anonymous.json()["error"]) == (401, "missing_token")


def test_bot_command_ids_are_keyed_with_the_game_secret() -> None:
    one, other = bot_command_id(b"a" * 32, 7, 1), bot_command_id(b"b" * 32, 7, 1)
    assert one.startswith("bot-7-1-") and other.startswith("bot-7-1-")
    assert one != other and len(one) - len("bot-7-1-") == 20
    assert bot_command_id(b"a" * 32, 7, 1) == one  # a job run twice sends the same command


def _move_over_socket(stack: ServerThread, game_id: str, token: str, command_id: str) -> dict[str, object]:
    """Send a Roll over the seat's WebSocket; its result frame."""
    with connect(f"{stack.ws_base}/ws/games/{game_id}?token={token}", open_timeout=10) as socket:
        assert json.loads(socket.recv(timeout=10))["type"] == "hello"
        socket.send(json.dumps({"type": "command", "command": {"type": "Roll"}, "command_id": command_id}))
        while (frame := json.loads(socket.recv(timeout=15)))["type"] != "result":
            pass
        result: dict[str, object] = frame
        return result


def test_over_the_websocket_too_an_id_is_its_seat_own(stack: ServerThread, api: httpx.Client) -> None:
    game = create(api, "race", 2)
    gid = game["game_id"]
    t0, t1 = game["seats"][0]["token"], game["seats"][1]["token"]
    first = _move_over_socket(stack, gid, t0, "same")
    second = _move_over_socket(stack, gid, t1, "same")
    assert (first["status"], first["seq"]) == ("applied", 2)
    assert (second["status"], second["seq"]) == ("applied", 3)
    assert _move_over_socket(stack, gid, t0, "same") == first  # seat 0's again: its first result
