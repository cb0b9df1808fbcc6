"""Leak check: bot games of every game and every seat count, each watched over the WebSocket by a spectator
and by every seat. Every frame each socket receives must be, byte for byte, the frame built from what that
viewer may know: the game's ``redact`` of each true event and its ``view`` of the true state, folded here
from the log in Redis (independently of the gateway's feed). And no frame carries a secret: the game's
seed or any seat's token.

Lean: the games are stopped after ``EVENTS`` events (set-up, where the hidden hands are dealt, included).
"""

from __future__ import annotations

import base64
import time
from typing import Any

import httpx
import msgspec
import redis

from domain.engine import Game
from events import codec, keys
from events.tlog.seal import seal
from services.gateway.access import auth
from services.gateway.wire.frames import EventFrame, Hello, Resync
from tests.conftest import TEST_GAMES
from tests.support.client import Recorder
from tests.support.harness import running_stack

EVENTS = 60
"""Events each game plays before the check (or fewer, if it ends first)."""
GAMES = ("elcapitan", "manila", "eic")


class Truth:
    """A game as it really is: every event and the state after it, folded from the stored log."""

    def __init__(self, client: redis.Redis, game: Game[Any, Any, Any, Any], game_id: str) -> None:
        self.game = game
        self.game_id = game_id
        entries: list[tuple[bytes, dict[bytes, bytes]]] = client.xrange(keys.events(game_id))  # type: ignore[assignment]
        self.envelopes = [codec.decode_envelope(fields[b"e"]) for _, fields in entries]
        self.events = [codec.decode_event(game, e) for e in self.envelopes]
        self.seed = bytes(client.hget(keys.meta(game_id), "seed") or b"")  # type: ignore[arg-type]
        self.states: list[Any] = [None]
        for event in self.events:
            self.states.append(game.evolve(self.states[-1], event))

    def common(self, seq: int, seat: int | None) -> dict[str, Any]:
        state = self.states[seq]
        outcome = self.game.outcome(state)
        return {
            "view": self.game.view(state, seat),
            "to_act": sorted(self.game.to_act(state)),
            "outcome": outcome,
            "status": "finished" if outcome is not None else "live",
        }

    def shown_hash(self, seq: int, over: bool) -> str:
        """Event ``seq``'s chain hash once the game is over, its seal while it is live (the hash could be
        searched for what is hidden)."""
        if seq <= 0:
            return ""
        chain_hash = self.envelopes[seq - 1].hash
        return chain_hash if over else seal(self.seed, self.game_id, seq, chain_hash)

    def frame(self, kind: str, seq: int, seat: int | None) -> bytes:
        """The frame this viewer may get: built from the game's own projections, not the gateway's."""
        if kind == "hello":
            return msgspec.json.encode(
                Hello(
                    game_id=self.game_id,
                    game=self.game.key,
                    viewer=seat,
                    seq=seq,
                    hash=self.shown_hash(seq, self.common(seq, seat)["outcome"] is not None),
                    **self.common(seq, seat),
                )
            )
        if kind == "resync":
            common = self.common(seq, seat)
            over = common["outcome"] is not None
            return msgspec.json.encode(Resync(seq=seq, hash=self.shown_hash(seq, over), **common))
        envelope, event = self.envelopes[seq - 1], self.events[seq - 1]
        common = self.common(seq, seat)
        shown = event if common["outcome"] is not None else self.game.redact(event, seat)
        frame = EventFrame(
            seq=seq,
            hash=self.shown_hash(seq, common["outcome"] is not None),
            event_type=envelope.type,
            seat=envelope.seat,
            event=shown,
            command_id=envelope.command_id,
            **common,
        )
        return msgspec.json.encode(frame)


def secrets_of(client: redis.Redis, game_id: str, tokens: dict[int, str]) -> list[bytes]:
    seed = bytes(client.hget(keys.meta(game_id), "seed") or b"")  # type: ignore[arg-type]
    return [seed.hex().encode(), base64.b64encode(seed), *(t.encode() for t in tokens.values())]


def wait_for_events(client: redis.Redis, game_ids: list[str], timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    for game_id in game_ids:
        while client.xlen(keys.events(game_id)) < EVENTS:
            if client.hget(keys.meta(game_id), "status") == b"finished":
                break
            assert time.monotonic() < deadline, f"{game_id} stopped short of {EVENTS} events"
            time.sleep(0.05)


def test_every_viewer_gets_exactly_what_it_may_know_in_every_game_and_seat_count(
    redis_url: str, redis_client: redis.Redis
) -> None:
    games: list[tuple[str, int, dict[int, str], dict[int | None, Recorder]]] = []
    with running_stack(redis_url, bot_delay_s=0.01) as server, httpx.Client(base_url=server.base) as api:
        for key in GAMES:
            game = TEST_GAMES[key]
            for seats in range(game.min_seats, game.max_seats + 1):
                bots = {str(s): "random" for s in range(seats)}
                created = api.post("/api/games", json={"game": key, "seats": seats, "bots": bots}).json()
                game_id = created["game_id"]
                tokens = auth.mint_tokens(redis_client, game_id, range(seats))  # bot seats, watched as seats
                url = f"{server.ws_base}/ws/games/{game_id}?from=0"
                viewers: dict[int | None, Recorder] = {None: Recorder(url)}
                viewers.update({s: Recorder(f"{url}&token={t}") for s, t in tokens.items()})
                games.append((key, seats, tokens, viewers))
        wait_for_events(redis_client, [g[3][None].url.split("/")[-1].split("?")[0] for g in games])
    frames = hidden = 0
    for key, seats, tokens, viewers in games:
        game_id = viewers[None].url.split("/")[-1].split("?")[0]
        truth = Truth(redis_client, TEST_GAMES[key], game_id)
        secret = secrets_of(redis_client, game_id, tokens)
        for seat, recorder in viewers.items():
            recorder.done.wait(10)
            assert recorder.raw, (key, seats, seat)
            for raw in recorder.raw:
                sent = msgspec.json.decode(raw)
                assert raw.encode() == truth.frame(sent["type"], sent["seq"], seat), (key, seats, seat, raw)
                assert not [s for s in secret if s in raw.encode()], (key, seats, seat)
                frames += 1
            seqs = [msgspec.json.decode(r)["seq"] for r in recorder.raw]
            assert seqs == list(range(seqs[0], seqs[0] + len(seqs))), (key, seats, seat)  # no gap, no repeat
            hidden += sum(1 for e in truth.events[: seqs[-1]] if TEST_GAMES[key].redact(e, seat) != e)
    print(f"\nleak check: {len(games)} games, {frames} frames checked, {hidden} redacted events, 0 leaked")
