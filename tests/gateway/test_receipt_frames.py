"""What a client keeps as its receipts starts here (issue 41): every event frame and every listed event carries
the event's ``seq`` and chain ``hash``, and the game page's state its seed commitment, exactly as the store
holds them, so a player can later prove what the server showed them."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
import redis

from events import codec, keys
from events.chain import genesis, link
from events.envelope import GameHeader
from tests.gateway.client import Recorder, create, post_command, wait_until
from tests.gateway.harness import ServerThread

pytestmark = pytest.mark.redis


def stored_chain(client: redis.Redis, game_id: str) -> tuple[GameHeader, dict[int, str]]:
    """The game's header and each event's hash, read from Redis, each hash computed again from its event."""
    header = codec.decode_header(bytes(client.hget(keys.meta(game_id), "header") or b""))  # type: ignore[arg-type]
    entries: list[tuple[bytes, dict[bytes, bytes]]] = client.xrange(keys.events(game_id))  # type: ignore[assignment]
    envelopes = [codec.decode_envelope(fields[b"e"]) for _, fields in entries]
    assert envelopes[0].prev_hash == genesis(header)
    for envelope in envelopes:
        assert link(envelope) == envelope.hash, envelope.seq
    return header, {envelope.seq: envelope.hash for envelope in envelopes}


def pairs(frames: list[dict[str, Any]]) -> dict[int, str]:
    """(seq, hash) of every frame: ``hello`` names the event its view is at, as each ``event`` does."""
    return {frame["seq"]: frame["hash"] for frame in frames if frame["type"] in ("hello", "event")}


def test_frames_and_listed_events_carry_each_events_seq_and_chain_hash(
    stack: ServerThread, api: httpx.Client, redis_client: redis.Redis
) -> None:
    game = create(api, "race", 2)
    gid, token = game["game_id"], game["seats"][0]["token"]
    seat = Recorder(f"{stack.ws_base}/ws/games/{gid}?token={token}&from=0")
    spectator = Recorder(f"{stack.ws_base}/ws/games/{gid}?from=0")
    wait_until(lambda: seat.raw and spectator.raw)
    for i in range(6):
        post_command(api, gid, token, {"command": {"type": "Note", "text": f"n{i}"}})
    wait_until(lambda: seat.last_seq() == 7 and spectator.last_seq() == 7)
    header, hashes = stored_chain(redis_client, gid)
    assert len(hashes) == 7 and len(set(hashes.values())) == 7
    assert pairs(seat.frames) == pairs(spectator.frames) == hashes  # every event, seat and spectator alike
    listed = api.get(f"/api/games/{gid}/events", params={"from": 0}).json()["events"]
    assert {item["seq"]: item["hash"] for item in listed} == hashes
    state = api.get(f"/api/games/{gid}").json()
    assert state["seed_commitment"] == header.seed_commitment and len(header.seed_commitment) == 64
    seat.close()
    spectator.close()
