"""Moves over the game's WebSocket (issue 19): the same checks, codes and idempotency as over HTTP."""

from __future__ import annotations

import json
from typing import Any

import httpx
from websockets.sync.client import ClientConnection, connect

from tests.support.client import create, post_command
from tests.support.harness import ServerThread


def _socket(stack: ServerThread, game_id: str, token: str | None = None) -> ClientConnection:
    query = f"?token={token}" if token else ""
    # Entered by hand so that a test can hold several; each test closes its sockets.
    socket = connect(f"{stack.ws_base}/ws/games/{game_id}{query}", open_timeout=10).__enter__()
    hello = json.loads(socket.recv(timeout=10))
    assert hello["type"] == "hello"
    return socket


def _send(socket: ClientConnection, command: Any, command_id: str | None = None) -> None:
    frame: dict[str, Any] = {"type": "command", "command": command}
    if command_id is not None:
        frame["command_id"] = command_id
    socket.send(json.dumps(frame))


def _until_result(socket: ClientConnection) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The frames before the next ``result`` frame, and that frame."""
    before: list[dict[str, Any]] = []
    while True:
        frame = json.loads(socket.recv(timeout=15))
        if frame["type"] == "result":
            return before, frame
        before.append(frame)


def test_an_applied_move_is_answered_after_its_event(stack: ServerThread, api: httpx.Client) -> None:
    game = create(api, "counter", 2)
    socket = _socket(stack, game["game_id"], game["seats"][0]["token"])
    _send(socket, {"type": "Move"}, "m1")
    before, result = _until_result(socket)
    assert result == {"type": "result", "command_id": "m1", "status": "applied", "seq": 2, "first_seq": 2}
    assert [f["seq"] for f in before if f["type"] == "event"] == [2]
    assert before[-1]["view"]["count"] == 1 and before[-1]["to_act"] == [1]
    socket.close()


def test_a_rule_refusal_carries_the_rules_code(stack: ServerThread, api: httpx.Client) -> None:
    game = create(api, "counter", 2)
    socket = _socket(stack, game["game_id"], game["seats"][1]["token"])
    _send(socket, {"type": "Move"}, "early")
    before, result = _until_result(socket)
    assert before == []
    assert result["status"] == "rejected" and result["code"] == "counter.not_your_turn"
    assert "seat 0" in result["message"]
    token = game["seats"][1]["token"]
    http = api.get(
        f"/api/games/{game['game_id']}/commands/early", headers={"Authorization": f"Bearer {token}"}
    ).json()
    assert http["status"] == "rejected" and http["code"] == result["code"]
    socket.close()


def test_a_repeated_command_id_gets_its_first_result_and_is_applied_once(
    stack: ServerThread, api: httpx.Client
) -> None:
    game = create(api, "counter", 2)
    gid = game["game_id"]
    socket = _socket(stack, gid, game["seats"][0]["token"])
    _send(socket, {"type": "Move"}, "once")
    _, first = _until_result(socket)
    _send(socket, {"type": "Move"}, "once")
    before, again = _until_result(socket)
    assert again == first and before == []
    over_http = post_command(
        api, gid, game["seats"][0]["token"], {"command": {"type": "Move"}, "command_id": "once"}
    )
    assert over_http.json()["status"] == "applied" and over_http.json()["seq"] == first["seq"]
    assert api.get(f"/api/games/{gid}").json()["view"]["count"] == 1
    socket.close()


def test_a_command_sent_again_while_waiting_is_answered_once(stack: ServerThread, api: httpx.Client) -> None:
    # The second copy supersedes the first (one PendingCommand answers): one result frame, one move.
    game = create(api, "counter", 2)
    socket = _socket(stack, game["game_id"], game["seats"][0]["token"])
    _send(socket, {"type": "Move"}, "twice")
    _send(socket, {"type": "Move"}, "twice")
    _, result = _until_result(socket)
    assert result["command_id"] == "twice" and result["status"] == "applied"
    _send(socket, {"type": "Move"}, "next")  # the other seat's turn: refused, after anything more of "twice"
    before, after = _until_result(socket)
    assert after["command_id"] == "next" and after["status"] == "rejected"
    assert [f for f in before if f["type"] == "result"] == []
    assert api.get(f"/api/games/{game['game_id']}").json()["view"]["count"] == 1
    socket.close()


def test_a_malformed_command_is_refused_with_the_http_code(stack: ServerThread, api: httpx.Client) -> None:
    game = create(api, "counter", 2)
    gid = game["game_id"]
    socket = _socket(stack, gid, game["seats"][0]["token"])
    _send(socket, {"type": "Fly"}, "bad")
    _, result = _until_result(socket)
    assert result["status"] == "rejected" and result["code"] == "invalid_command"
    _send(socket, {"type": "Move"}, "spaces are not allowed")
    _, result = _until_result(socket)
    assert result["status"] == "rejected" and result["code"] == "bad_command_id"
    assert api.get(f"/api/games/{gid}").json()["seq"] == 1, "a refused frame changes nothing"
    socket.close()


def test_a_spectators_socket_refuses_commands_with_a_clear_frame(
    stack: ServerThread, api: httpx.Client
) -> None:
    game = create(api, "counter", 2)
    socket = _socket(stack, game["game_id"])
    _send(socket, {"type": "Move"}, "sneaky")
    _, result = _until_result(socket)
    assert result["status"] == "rejected" and result["code"] == "spectator"
    assert "seat token" in result["message"]
    assert api.get(f"/api/games/{game['game_id']}").json()["seq"] == 1
    socket.close()


def test_two_seats_play_a_whole_game_over_their_sockets(stack: ServerThread, api: httpx.Client) -> None:
    game = create(api, "counter", 2, options={"limit": 30})
    gid = game["game_id"]
    sockets = [_socket(stack, gid, grant["token"]) for grant in game["seats"]]
    for move in range(30):
        seat = move % 2
        _send(sockets[seat], {"type": "Move"}, f"move-{move}")
        _, result = _until_result(sockets[seat])
        assert result["status"] == "applied" and result["seq"] == move + 2
    final = api.get(f"/api/games/{gid}").json()
    assert final["status"] == "finished" and final["view"]["count"] == 30
    _send(sockets[0], {"type": "Move"}, "after-the-end")
    _, result = _until_result(sockets[0])
    assert result["status"] == "rejected" and result["code"] == "game_finished"
    for socket in sockets:
        socket.close()
