"""A seat's token revoked while its socket is open (an organiser gave the place to someone else:
``tournament replace`` swaps the token in the game's tokens hash): the socket is closed with 4401 within
the time the gateway trusts a remembered token, and the command sent after that is not taken; the
seat's new token plays on (issue 33's left-over: before, the open socket kept the seat)."""

from __future__ import annotations

import json
import time

import httpx
import redis

from services.gateway.access import auth
from services.gateway.context import SEAT_CACHE_S
from services.gateway.wire.close_codes import CLOSE_BAD_TOKEN
from tests.support.client import Recorder, create, post_command, wait_until
from tests.support.harness import ServerThread


def test_a_revoked_seats_open_socket_is_closed_and_its_new_token_plays(
    stack: ServerThread, api: httpx.Client, redis_client: redis.Redis
) -> None:
    game = create(api, "race", 2)
    gid, old = game["game_id"], game["seats"][0]["token"]
    recorder = Recorder(f"{stack.ws_base}/ws/games/{gid}?token={old}")
    wait_until(lambda: recorder.raw)
    spectator = Recorder(f"{stack.ws_base}/ws/games/{gid}")
    wait_until(lambda: spectator.raw)
    recorder.send(
        json.dumps({"type": "command", "command_id": "w1", "command": {"type": "Note", "text": "mine"}})
    )
    wait_until(lambda: any(f.get("type") == "result" for f in recorder.frames))  # the seat is the socket's
    (new,) = auth.mint_tokens(redis_client, gid, [0]).values()
    revoked_at = time.monotonic()
    redis_client.hdel(auth.tokens_key(gid), auth.digest(old))  # as a replace does
    wait_until(lambda: recorder.close_code is not None, timeout=3 * SEAT_CACHE_S)
    assert recorder.close_code == CLOSE_BAD_TOKEN and "given to someone else" in recorder.close_reason
    assert time.monotonic() - revoked_at < 2 * SEAT_CACHE_S + 1
    note = {"type": "Note", "text": "too late"}
    assert post_command(api, gid, old, {"command": note}).status_code == 403
    assert post_command(api, gid, new, {"command": note}).json()["status"] == "applied"
    assert spectator.close_code is None  # a spectator has no seat to lose
    spectator.close()
    recorder.close()
