"""The WebSocket: hello then events in order, reconnect with ``from``, refusals and their close codes."""

from __future__ import annotations

import asyncio
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import redis

from services.gateway.app import async_client
from services.gateway.feeds.hub import FeedHub
from services.gateway.wire.close_codes import MAX_WS_MESSAGE
from tests.support.client import Recorder, create, event_seqs, post_command, wait_until
from tests.support.harness import ServerThread, running_stack
from tests.support.pipeline import services_for


def notes(api: httpx.Client, game_id: str, token: str, count: int, start: int = 0) -> None:
    for i in range(start, start + count):
        response = post_command(api, game_id, token, {"command": {"type": "Note", "text": f"n{i}"}})
        assert response.json()["status"] == "applied"


def test_hello_then_one_frame_per_event_in_order(stack: ServerThread, api: httpx.Client) -> None:
    game = create(api, "race", 2)
    gid, token = game["game_id"], game["seats"][0]["token"]
    recorder = Recorder(f"{stack.ws_base}/ws/games/{gid}?token={token}")
    wait_until(lambda: recorder.raw)
    notes(api, gid, token, 20)
    wait_until(lambda: recorder.last_seq() == 21)
    frames = recorder.frames
    assert frames[0]["type"] == "hello" and frames[0]["seq"] == 1 and frames[0]["viewer"] == 0
    assert event_seqs(frames) == list(range(2, 22))
    assert frames[-1]["event"] == {"type": "Noted", "seat": 0, "text": "n19"}
    assert frames[-1]["view"]["notes"] == 20
    recorder.close()


def test_reconnect_with_from_loses_nothing_and_repeats_nothing(
    stack: ServerThread, api: httpx.Client
) -> None:
    game = create(api, "race", 2)
    gid, token = game["game_id"], game["seats"][0]["token"]
    first = Recorder(f"{stack.ws_base}/ws/games/{gid}")
    wait_until(lambda: first.raw)
    notes(api, gid, token, 5)
    wait_until(lambda: first.last_seq() == 6)
    first.close()
    seen = first.last_seq()
    notes(api, gid, token, 7, start=5)  # missed while away
    second = Recorder(f"{stack.ws_base}/ws/games/{gid}?from={seen}")
    wait_until(lambda: second.last_seq() == 13)
    notes(api, gid, token, 2, start=12)
    wait_until(lambda: second.last_seq() == 15)
    hello = second.frames[0]
    assert hello["type"] == "hello" and hello["seq"] == seen
    assert hello["view"]["notes"] == 5
    combined = event_seqs(first.frames) + event_seqs(second.frames)
    assert combined == list(range(2, 16))
    texts = [f["event"]["text"] for f in first.frames + second.frames if f["type"] == "event"]
    assert texts == [f"n{i}" for i in range(14)]
    second.close()


def test_refusals_close_with_their_codes(stack: ServerThread, api: httpx.Client) -> None:
    game = create(api, "race", 2)
    gid = game["game_id"]
    cases = [
        (f"/ws/games/{gid}?token=forged", None, 4401),
        ("/ws/games/unknown", None, 4404),
        (f"/ws/games/{gid}?from=abc", None, 4400),
        (f"/ws/games/{gid}", "https://evil.example", 4403),
    ]
    for path, origin, code in cases:
        recorder = Recorder(stack.ws_base + path, origin=origin)
        assert recorder.done.wait(5), path
        assert recorder.close_code == code, (path, recorder.close_code, recorder.close_reason)
        assert recorder.close_reason
    same_origin = Recorder(f"{stack.ws_base}/ws/games/{gid}", origin=stack.base)
    wait_until(lambda: same_origin.raw)
    same_origin.send('{"type": "ping"}')
    wait_until(lambda: any('"pong"' in r for r in same_origin.raw))
    same_origin.send("x" * (MAX_WS_MESSAGE + 1))
    assert same_origin.done.wait(5)
    assert same_origin.close_code == 1009
    unknown = Recorder(f"{stack.ws_base}/ws/games/{gid}")
    wait_until(lambda: unknown.raw)
    unknown.send('{"type": "subscribe"}')
    assert unknown.done.wait(5)
    assert unknown.close_code == 4400


def test_a_from_beyond_the_game_is_answered_with_its_latest_view_never_refused(
    stack: ServerThread, api: httpx.Client
) -> None:
    """A client holding events the store no longer has (Redis lost its last seconds) asks from past its end:
    it is told where the game stands (``hello`` at a lower seq), then gets the events that follow."""
    game = create(api, "race", 2)
    gid, token = game["game_id"], game["seats"][0]["token"]
    notes(api, gid, token, 3)
    recorder = Recorder(f"{stack.ws_base}/ws/games/{gid}?from=99")
    wait_until(lambda: recorder.raw)
    hello = recorder.frames[0]
    assert hello["type"] == "hello" and hello["seq"] == 4 and hello["view"]["notes"] == 3
    notes(api, gid, token, 1, start=3)
    wait_until(lambda: recorder.last_seq() == 5)
    assert event_seqs(recorder.frames) == [5]
    recorder.close()


def test_allowed_origins_are_configurable(redis_url: str, redis_client: redis.Redis) -> None:
    with running_stack(redis_url, allowed_origins=("https://club.example",)) as server:
        with httpx.Client(base_url=server.base) as api:
            gid = create(api, "race", 2)["game_id"]
        recorder = Recorder(f"{server.ws_base}/ws/games/{gid}", origin="https://club.example")
        wait_until(lambda: recorder.raw)
        assert recorder.frames[0]["type"] == "hello"
        recorder.close()


def test_tournament_spectators_watch_with_a_delay(stack: ServerThread, api: httpx.Client) -> None:
    game = create(api, "race", 2, tournament=True, spectator_delay=3)
    gid, token = game["game_id"], game["seats"][0]["token"]
    spectator = Recorder(f"{stack.ws_base}/ws/games/{gid}")
    player = Recorder(f"{stack.ws_base}/ws/games/{gid}?token={token}")
    wait_until(lambda: spectator.raw and player.raw)
    notes(api, gid, token, 6)
    wait_until(lambda: player.last_seq() == 7 and spectator.last_seq() == 4)
    time.sleep(0.2)
    assert spectator.last_seq() == 4
    assert api.get(f"/api/games/{gid}").json()["seq"] == 4
    assert api.get(f"/api/games/{gid}", headers={"Authorization": f"Bearer {token}"}).json()["seq"] == 7
    assert [e["seq"] for e in api.get(f"/api/games/{gid}/events").json()["events"]] == [1, 2, 3, 4]
    assert event_seqs(spectator.frames) == [2, 3, 4]
    spectator.close()
    player.close()


def test_a_slow_viewer_is_sent_a_fresh_view_and_never_slows_the_others(
    redis_url: str, redis_client: redis.Redis
) -> None:
    """In-process: a viewer whose queue is full is resynced; a fast one still gets every frame."""
    services = services_for(redis_url)
    services.store.create("race", "slow", 2, {}, b"s" * 32)

    async def scenario() -> tuple[bool, int, list[int], int]:
        client = async_client(redis_url)
        hub = FeedHub(client, redis_url, services.store.games)
        hub.start()
        feed = await hub.feed("slow")
        slow, _, _ = feed.subscribe(None, None)
        fast, _, _ = feed.subscribe(0, None)
        slow.limit = 3
        woken = asyncio.Event()
        fast.wake = woken.set  # what a socket's sender would do: drain the queue
        received: list[int] = []
        for i in range(10):
            services.bus.submit("slow", 0, b'{"type":"Note","text":"%d"}' % i)
        from tests.support.harness import WorkerThread

        worker = WorkerThread(redis_url)
        worker.start()
        deadline = time.monotonic() + 10
        while len(received) < 10 and time.monotonic() < deadline:
            await asyncio.wait_for(woken.wait(), 5)
            woken.clear()
            while fast.items:
                received.append(fast.items.popleft()[0])
        worker.stop()
        await hub.stop()
        await client.aclose()
        seq, _ = feed.resync_frame(None)
        return slow.resync, len(slow.items or ()), received, seq

    # In a thread of its own: in a whole-suite run on one process, the browser tests' Playwright keeps an
    # event loop running in the main thread, where asyncio.run() refuses to start another.
    with ThreadPoolExecutor(1) as thread:
        resync, queued, received, seq = thread.submit(asyncio.run, scenario()).result()
    assert resync and queued < 3
    assert received == list(range(2, 12))
    assert seq == 11


def test_tournament_spectators_can_be_delayed_in_seconds(stack: ServerThread, api: httpx.Client) -> None:
    game = create(api, "race", 2, tournament=True, spectator_delay_seconds=1.5)
    gid, token = game["game_id"], game["seats"][0]["token"]
    spectator = Recorder(f"{stack.ws_base}/ws/games/{gid}")
    wait_until(lambda: spectator.raw)
    started = time.monotonic()
    notes(api, gid, token, 3)
    assert api.get(f"/api/games/{gid}").json()["seq"] == 1
    assert spectator.last_seq() == 1
    wait_until(lambda: spectator.last_seq() == 4)
    assert time.monotonic() - started >= 1.4
    assert event_seqs(spectator.frames) == [2, 3, 4]
    assert api.get(f"/api/games/{gid}").json()["seq"] == 4
    spectator.close()
