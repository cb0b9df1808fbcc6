"""``HARBORMASTER_TRANSPORT=plain``: the gateway and the fold worker talk to Redis through redis-py alone
(``events/transport/plain.py``), for a debugger; everything a player does works as on the fast transport."""

from __future__ import annotations

import json

import httpx
import redis

from events.transport.plain import PlainAppender, PlainLink
from tests.integration.gateway.test_websocket import notes
from tests.support.client import Recorder, create, event_seqs, post_command, wait_until
from tests.support.harness import running_stack


def test_a_game_is_played_over_http_and_its_socket_on_the_plain_transport(
    redis_url: str, redis_client: redis.Redis
) -> None:
    with running_stack(redis_url, settings={"transport": "plain"}) as server:
        gateway = server.app.state.gateway
        assert isinstance(gateway.link, PlainLink) and isinstance(gateway.hub.nodes, PlainLink)
        assert server.worker is not None and isinstance(server.worker.worker.appender, PlainAppender)
        with httpx.Client(base_url=server.base, timeout=30) as api:
            game = create(api, "race", 2)
            gid, token = game["game_id"], game["seats"][0]["token"]
            recorder = Recorder(f"{server.ws_base}/ws/games/{gid}?token={token}")
            wait_until(lambda: recorder.raw)
            notes(api, gid, token, 5)  # over HTTP, each awaited
            note = {"type": "Note", "text": "by socket"}
            recorder.send(json.dumps({"type": "command", "command_id": "w1", "command": note}))
            wait_until(lambda: any(f.get("type") == "result" for f in recorder.frames))
            again = post_command(api, gid, token, {"command": note, "command_id": "w1"})
            assert again.json()["status"] == "applied" and again.json()["seq"] == 7  # its first result
            wait_until(lambda: recorder.last_seq() == 7)
            recorder.close()
    frames = recorder.frames
    assert event_seqs(frames) == list(range(2, 8))
    assert [f for f in frames if f.get("type") == "result"] == [
        {"type": "result", "command_id": "w1", "status": "applied", "seq": 7, "first_seq": 7}
    ]
