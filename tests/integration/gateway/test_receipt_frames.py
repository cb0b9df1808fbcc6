"""What a client keeps as its receipts starts here (issue 41): every event frame and every listed event carries
the event's ``seq`` and ``hash``, and the game page's state its seed commitment, so a player can later prove
what the server showed them. While the game is live ``hash`` is the event's seal (``events/tlog/seal.py``,
keyed with the game's secret seed): its chain hash, shown with the redacted events, could be searched for
what is hidden. From the event that ends the game (and reveals the seed) on, it is the chain hash."""

from __future__ import annotations

import base64
import itertools
import json
import threading
from typing import Any

import httpx
import msgspec
import redis

from domain.manila.events import SharesDealt
from events import codec, keys
from events.chain import genesis, link
from events.envelope import Envelope, GameHeader
from events.tlog.note import Signer
from events.tlog.seal import seal
from tests.conftest import TEST_GAMES
from tests.support.client import Recorder, create, post_command, wait_until
from tests.support.harness import ServerThread, running_stack
from workers.log_sequencer import LogSequencer


def stored_envelopes(client: redis.Redis, game_id: str) -> list[Envelope]:
    entries: list[tuple[bytes, dict[bytes, bytes]]] = client.xrange(keys.events(game_id))  # type: ignore[assignment]
    return [codec.decode_envelope(fields[b"e"]) for _, fields in entries]


def stored_chain(client: redis.Redis, game_id: str) -> tuple[GameHeader, dict[int, str]]:
    """The game's header and each event's hash, read from Redis, each hash computed again from its event."""
    header = codec.decode_header(bytes(client.hget(keys.meta(game_id), "header") or b""))  # type: ignore[arg-type]
    envelopes = stored_envelopes(client, game_id)
    assert envelopes[0].prev_hash == genesis(header)
    for envelope in envelopes:
        assert link(envelope) == envelope.hash, envelope.seq
    return header, {envelope.seq: envelope.hash for envelope in envelopes}


def pairs(frames: list[dict[str, Any]]) -> dict[int, str]:
    """(seq, hash) of every frame: ``hello`` names the event its view is at, as each ``event`` does."""
    return {frame["seq"]: frame["hash"] for frame in frames if frame["type"] in ("hello", "event")}


def sealed(client: redis.Redis, game_id: str, hashes: dict[int, str]) -> dict[int, str]:
    """Each event's seal, keyed with the game's seed (what viewers are shown while it is live)."""
    seed = bytes(client.hget(keys.meta(game_id), "seed") or b"")  # type: ignore[arg-type]
    return {seq: seal(seed, game_id, seq, chain_hash) for seq, chain_hash in hashes.items()}


def test_frames_and_listed_events_carry_each_events_seal_while_live_and_its_hash_at_the_end(
    stack: ServerThread, api: httpx.Client, redis_client: redis.Redis
) -> None:
    game = create(api, "race", 1, options={"goal": 15})
    gid, token = game["game_id"], game["seats"][0]["token"]
    seat = Recorder(f"{stack.ws_base}/ws/games/{gid}?token={token}&from=0")
    spectator = Recorder(f"{stack.ws_base}/ws/games/{gid}?from=0")
    wait_until(lambda: seat.raw and spectator.raw)
    for i in range(6):
        post_command(api, gid, token, {"command": {"type": "Note", "text": f"n{i}"}})
    wait_until(lambda: seat.last_seq() == 7 and spectator.last_seq() == 7)
    header, hashes = stored_chain(redis_client, gid)
    seals = sealed(redis_client, gid, hashes)
    assert len(set(seals.values())) == 7 and not set(seals.values()) & set(hashes.values())
    assert pairs(seat.frames) == pairs(spectator.frames) == seals  # every event, seat and spectator alike
    listed = api.get(f"/api/games/{gid}/events", params={"from": 0}).json()["events"]
    assert {item["seq"]: item["hash"] for item in listed} == seals
    state = api.get(f"/api/games/{gid}").json()
    assert state["seed_commitment"] == header.seed_commitment and len(header.seed_commitment) == 64
    while post_command(api, gid, token, {"command": {"type": "Roll"}}).status_code == 200:
        pass  # to the end, which reveals the seed: from then on the chain hashes themselves
    _, hashes = stored_chain(redis_client, gid)
    last = max(hashes)
    wait_until(lambda: seat.last_seq() == last and spectator.last_seq() == last)
    assert pairs(seat.frames)[last] == pairs(spectator.frames)[last] == hashes[last]
    seals = sealed(redis_client, gid, hashes)
    assert {s: h for s, h in pairs(seat.frames).items() if s < last} == {s: seals[s] for s in range(1, last)}
    listed = api.get(f"/api/games/{gid}/events", params={"from": 0}).json()["events"]
    assert {item["seq"]: item["hash"] for item in listed} == hashes
    seat.close()
    spectator.close()


def test_a_spectator_cannot_recover_the_dealt_shares_from_the_hashes_it_is_shown(
    stack: ServerThread, api: httpx.Client, redis_client: redis.Redis
) -> None:
    gid = create(api, "manila", 3)["game_id"]
    state = api.get(f"/api/games/{gid}").json()  # a spectator: no token
    created_ms = next(g["created_ms"] for g in api.get("/api/games").json()["games"] if g["game_id"] == gid)
    items = api.get(f"/api/games/{gid}/events").json()["events"]
    at = next(i for i, item in enumerate(items) if item["type"] == "SharesDealt")
    dealt = items[at]
    assert dealt["event"]["hands"] == [None, None, None]  # redacted, as a spectator must see it
    header = GameHeader(game_id=gid, game="manila", seats=3, options={}, seed_commitment=state["seed_commitment"],
                        created_ms=created_ms)  # fmt: skip
    prev = items[at - 1]["hash"] if at else genesis(header)
    goods = ("ginseng", "jade", "nutmeg", "silk")
    recovered = None
    for hands in itertools.product(itertools.product(goods, repeat=2), repeat=3):
        event = SharesDealt(hands=hands, supply=tuple(dealt["event"]["supply"]))
        kind, version = codec.event_type(event)
        guess = Envelope(game_id=gid, seq=dealt["seq"], type=kind, version=version, payload=codec.encode_event(event),
                         command_id=dealt["command_id"], seat=dealt["seat"], ts_ms=dealt["ts_ms"], prev_hash=prev)  # fmt: skip
        if link(guess) == dealt["hash"]:
            recovered = hands
            break
    stored = next(e for e in stored_envelopes(redis_client, gid) if e.seq == dealt["seq"])
    assert dealt["hash"] == sealed(redis_client, gid, {stored.seq: stored.hash})[stored.seq]  # not the hash
    truth = codec.decode_event(TEST_GAMES["manila"], stored)
    assert recovered is None and truth.hands[0], "a spectator read every player's secret shares off the hash"


def test_nor_from_the_logs_receipt_of_a_live_game(redis_url: str, redis_client: redis.Redis) -> None:
    with running_stack(redis_url) as stack, httpx.Client(base_url=stack.base, timeout=30) as api:
        sequencer = LogSequencer(
            redis.Redis.from_url(redis_url), Signer.generate("leak.test/log"), interval_s=0.1
        )
        thread = threading.Thread(target=sequencer.run, daemon=True)
        thread.start()
        try:
            gid = create(api, "manila", 3)["game_id"]
            wait_until(lambda: api.get(f"/api/games/{gid}/receipt").status_code == 200)
            receipt = api.get(f"/api/games/{gid}/receipt").json()
            items = api.get(f"/api/games/{gid}/events").json()["events"]  # their hashes are not used below
            state = api.get(f"/api/games/{gid}").json()
            created_ms = next(
                g["created_ms"] for g in api.get("/api/games").json()["games"] if g["game_id"] == gid
            )
        finally:
            sequencer.stopping.set()
            thread.join(timeout=15)
    head = json.loads(base64.b64decode(receipt["leaf"]))
    assert head["kind"] == "sealed" and "hash" not in head  # a live game's head: sealed with its seed
    header = GameHeader(game_id=gid, game="manila", seats=3, options={}, seed_commitment=state["seed_commitment"],
                        created_ms=created_ms)  # fmt: skip
    shown = [
        (item, msgspec.convert(item["event"], TEST_GAMES["manila"].Event)) for item in items[: head["seq"]]
    ]
    goods = ("ginseng", "jade", "nutmeg", "silk")
    recovered = None
    for hands in itertools.product(itertools.product(goods, repeat=2), repeat=3):
        prev = genesis(header)
        for item, event in shown:
            if isinstance(event, SharesDealt):
                event = SharesDealt(hands=hands, supply=event.supply)
            kind, version = codec.event_type(event)
            prev = link(Envelope(game_id=gid, seq=item["seq"], type=kind, version=version,
                                 payload=codec.encode_event(event), command_id=item["command_id"],
                                 seat=item["seat"], ts_ms=item["ts_ms"], prev_hash=prev))  # fmt: skip
        if prev == head["seal"]:
            recovered = hands
            break
    stored = next(e for e in stored_envelopes(redis_client, gid) if e.type == "SharesDealt")
    truth = codec.decode_event(TEST_GAMES["manila"], stored)
    assert recovered != truth.hands, "anyone read every player's secret shares off the log's receipt"
