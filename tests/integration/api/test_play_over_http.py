"""Whole random games of every kind over HTTP, watched by every seat and a spectator on WebSockets."""

from __future__ import annotations

import json
import time
from typing import Any

import httpx
import msgspec
import pytest

from domain import GAMES
from tests.support.client import Recorder, bearer, create, event_seqs, play_random
from tests.support.harness import ServerThread

KINDS = sorted(GAMES) or ["race"]
SEATS = {"elcapitan": 3, "manila": 4, "eic": 3, "race": 3}


def wait_until(check: Any, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def secret_patterns(game_key: str, full_events: list[dict[str, Any]]) -> dict[int, list[bytes]]:
    """Per sequence number, the raw JSON of every field a spectator must not see in that event."""
    game = GAMES[game_key]
    patterns: dict[int, list[bytes]] = {}
    for item in full_events:
        event = msgspec.json.decode(json.dumps(item["event"]), type=game.Event)
        shown = game.redact(event, None)
        full = msgspec.to_builtins(event)
        seen = msgspec.to_builtins(shown) if shown is not None else {}
        hidden = [
            b'"' + key.encode() + b'":' + msgspec.json.encode(value)
            for key, value in full.items()
            if seen.get(key) != value and value not in (None, [], {}, "")
        ]
        if hidden:
            patterns[item["seq"]] = hidden
    return patterns


def hidden_in_views(
    frames: dict[int, list[dict[str, Any]]], spectator: dict[int, Any]
) -> dict[int, list[bytes]]:
    """What a seat's view shows where the spectator's view at the same place shows null.

    Only ids and non-empty lists (a hand of shares, a face-down tile's id): a single word such as a
    ship's kind may be public elsewhere on the board, so it would not prove a leak on the raw bytes.
    """
    found: dict[int, list[bytes]] = {}

    def walk(mine: Any, theirs: Any, seq: int) -> None:
        if isinstance(mine, dict) and isinstance(theirs, dict):
            for key, value in mine.items():
                telling = (key == "id" and isinstance(value, str)) or (isinstance(value, list) and value)
                if telling and theirs.get(key) is None:
                    found.setdefault(seq, []).append(b'"id":' + msgspec.json.encode(value))
                walk(value, theirs.get(key), seq)
        elif isinstance(mine, list) and isinstance(theirs, list):
            for a, b in zip(mine, theirs, strict=False):
                walk(a, b, seq)

    for seq, views in frames.items():
        for view in views:
            walk(view, spectator.get(seq), seq)
    return found


@pytest.mark.parametrize("kind", KINDS)
def test_a_whole_random_game_over_http_every_socket_sees_every_event_once(
    kind: str, stack: ServerThread, api: httpx.Client
) -> None:
    seats = SEATS[kind]
    game = create(api, kind, seats)
    gid = game["game_id"]
    tokens = {s["seat"]: s["token"] for s in game["seats"]}
    watchers = {seat: Recorder(f"{stack.ws_base}/ws/games/{gid}?token={t}") for seat, t in tokens.items()}
    spectator = Recorder(f"{stack.ws_base}/ws/games/{gid}")
    wait_until(lambda: all(w.raw for w in [*watchers.values(), spectator]))
    seen_over_http: list[bytes] = []
    moves = play_random(api, gid, tokens, seed=7, seen=seen_over_http)
    final = api.get(f"/api/games/{gid}").json()
    assert final["status"] == "finished" and final["outcome"] is not None and moves > 0
    last = final["seq"]
    for recorder in [*watchers.values(), spectator]:
        wait_until(lambda r=recorder: r.last_seq() == last)
        frames = recorder.frames
        assert frames[0]["type"] == "hello"
        assert event_seqs(frames) == list(range(frames[0]["seq"] + 1, last + 1))
        assert frames[-1]["status"] == "finished"
    for seat, recorder in watchers.items():
        assert recorder.frames[0]["viewer"] == seat
    # hidden information: checked on the spectator's raw frames, while the game was live
    full = api.get(f"/api/games/{gid}/events").json()["events"]
    secrets = secret_patterns(kind, full)
    seat_views: dict[int, list[dict[str, Any]]] = {}
    for recorder in watchers.values():
        for frame in recorder.frames[1:]:
            seat_views.setdefault(frame["seq"], []).append(frame["view"])
    spectator_views = {f["seq"]: f["view"] for f in spectator.frames[1:]}
    view_secrets = hidden_in_views(seat_views, spectator_views)
    if kind in ("manila", "eic"):
        assert secrets or view_secrets, "a game with hidden information hid nothing from the spectator"
    live_raw = [(json.loads(r)["seq"], r.encode()) for r in spectator.raw if '"status":"live"' in r]
    for seq, raw in live_raw:
        view_at = raw.index(b',"view":')
        event_part = raw[raw.index(b',"event":') : view_at] if b',"event":' in raw else b""
        view_part = raw[view_at:]
        for secret in secrets.get(seq, []):
            assert secret not in event_part, f"the spectator's event {seq} shows {secret!r}"
        for secret in view_secrets.get(seq, []):
            assert secret not in view_part, f"the spectator's view at {seq} shows {secret!r}"
    for raw in seen_over_http:  # the same secrets, in what a spectator read over HTTP while it was live
        if raw.startswith(b'{"game_id":') and b'"events":' in raw:
            for chunk in raw.split(b'{"seq":')[1:]:
                seq = int(chunk.split(b",", 1)[0])
                assert not any(secret in chunk for secret in secrets.get(seq, [])), f"event {seq} over HTTP"
        else:
            seq = json.loads(raw)["seq"]
            view_part = raw[raw.index(b',"view":') :]
            assert not any(secret in view_part for secret in view_secrets.get(seq, [])), (
                f"view {seq} over HTTP"
            )
    for recorder in [*watchers.values(), spectator]:
        recorder.close()


def test_legal_items_post_as_they_are(api: httpx.Client) -> None:
    for kind in KINDS:
        game = create(api, kind, SEATS[kind])
        gid = game["game_id"]
        state = api.get(f"/api/games/{gid}").json()
        seat = state["to_act"][0]
        token = next(s["token"] for s in game["seats"] if s["seat"] == seat)
        legal = api.get(f"/api/games/{gid}/legal", headers=bearer(token)).json()
        response = api.post(
            f"/api/games/{gid}/commands?wait=true", json={"command": legal[0]}, headers=bearer(token)
        )
        assert response.json()["status"] == "applied", (kind, response.text)
