"""A Redis that lost its last seconds (restarted on an earlier copy of its append-only file): the gateway's
feeds and viewers come back to the store's truth, a ``from=`` past the store is answered with it, the
game goes on, and bot moves decided on the lost events neither stall the game nor take a position's id."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest
import redis
import redis.asyncio as aioredis

from events import keys
from services.bootstrap import Services
from services.gateway.feeds.fanout import GameFeed
from services.gateway.feeds.feed_check import Standing, stale_feeds, standing
from services.gateway.feeds.hub import FeedHub
from tests.support.client import Recorder, bearer, create, post_command, wait_until
from tests.support.harness import ServerThread, WorkerThread
from tests.support.pipeline import new_race, services_for
from tests.support.rollback import RollbackRedis
from workers.botrunner import BEAT_S, BotRunner
from workers.fold import FoldWorker
from workers.jobs.bots import bot_command_id


@pytest.fixture
def rolling(tmp_path: Path) -> Iterator[RollbackRedis]:
    server = RollbackRedis(tmp_path / "data")
    server.start()
    try:
        yield server
    finally:
        server.stop()


def roll(api: httpx.Client, game_id: str, tokens: dict[int, str]) -> int:
    """The seat to act rolls; returns the game's seq after it."""
    seat = api.get(f"/api/games/{game_id}").json()["to_act"][0]
    response = post_command(api, game_id, tokens[seat], {"command": {"type": "Roll"}})
    assert response.status_code == 200 and response.json()["status"] == "applied", response.text
    seq: int = response.json()["seq"]
    return seq


def store_view(services: Services, game_id: str, seat: int | None) -> tuple[int, Any]:
    """The store's own seq and view (JSON as a client gets it), read without the gateway."""
    loaded = services.store.load(game_id)
    return loaded.seq, msgspec.json.decode(msgspec.json.encode(loaded.game.view(loaded.state, seat)))


def test_feeds_resync_to_the_store_from_beyond_gets_its_view_and_the_game_goes_on(
    rolling: RollbackRedis,
) -> None:
    url = rolling.url
    services = services_for(url)
    server = ServerThread(services, url)
    server.start()
    worker = WorkerThread(url)
    worker.start()
    api = httpx.Client(base_url=server.base, timeout=30)
    try:
        game = create(api, "race", 2, options={"goal": 10_000})
        gid = game["game_id"]
        tokens = {s["seat"]: s["token"] for s in game["seats"]}
        for _ in range(4):
            kept = roll(api, gid, tokens)
        spectator = Recorder(f"{server.ws_base}/ws/games/{gid}")
        player = Recorder(f"{server.ws_base}/ws/games/{gid}?token={tokens[0]}")
        wait_until(lambda: spectator.raw and player.raw)
        rolling.snapshot()  # everything acknowledged so far is in the copy
        for _ in range(6):
            lost = roll(api, gid, tokens)
        wait_until(lambda: spectator.last_seq() == lost and player.last_seq() == lost)
        worker.stop()

        rolling.roll_back()
        assert services.store.meta(gid).last_seq == kept < lost

        # Every viewer is sent the store's view, at the store's seq, and the feed serves the store's state.
        for recorder, seat in ((spectator, None), (player, 0)):
            wait_until(lambda r=recorder: any(f["type"] == "resync" for f in r.frames), timeout=30)
            resync = next(f for f in recorder.frames if f["type"] == "resync")
            assert (resync["seq"], resync["view"]) == store_view(services, gid, seat)
        state = api.get(f"/api/games/{gid}").json()
        assert (state["seq"], state["view"]) == store_view(services, gid, None)
        to_act = state["to_act"][0]
        legal = api.get(f"/api/games/{gid}/legal", headers=bearer(tokens[to_act])).json()
        assert legal == [{"type": "Roll"}] and to_act == (kept - 1) % 2  # seat 0 rolls at 1, 3, 5 …

        # A client that saw the lost events asks from past the store: it gets the store's view, not 4400.
        late = Recorder(f"{server.ws_base}/ws/games/{gid}?from={lost}")
        wait_until(lambda: late.raw)
        hello = late.frames[0]
        assert hello["type"] == "hello" and (hello["seq"], hello["view"]) == store_view(services, gid, None)

        # The game goes on from the store's position, and every viewer follows it.
        worker = WorkerThread(url)
        worker.start()
        assert roll(api, gid, tokens) == kept + 1
        for recorder in (spectator, player, late):
            wait_until(lambda r=recorder: r.frames[-1].get("seq") == kept + 1)
            assert recorder.frames[-1]["type"] == "event"
        after_resync = [f["seq"] for f in spectator.frames[spectator.frames.index(resync) :]]
        assert after_resync == [kept, kept + 1]
        for recorder in (spectator, player, late):
            recorder.close()
    finally:
        api.close()
        server.stop()
        worker.stop()


class BotGame:
    """A race of a player (seat 0) and a bot played by a real ``BotRunner``, stepped by hand."""

    def __init__(self, rolling: RollbackRedis, game_id: str, goal: int = 10_000) -> None:
        self.services = services_for(rolling.url)
        self.game_id = game_id
        new_race(self.services, game_id, seats=2, goal=goal)
        self.services.redis.hset(keys.meta(game_id), "bots", b'{"1": "random"}')
        self.runner = BotRunner(self.services.store, self.services.bus)
        self.fold = FoldWorker(self.services.redis, self.services.store, self.services.bus, block_ms=20)

    @property
    def seq(self) -> int:
        return self.services.store.meta(self.game_id).last_seq

    def round(self) -> None:
        """The player rolls, the bot answers; the runner reads both."""
        self.services.bus.submit(self.game_id, 0, b'{"type":"Roll"}')
        self.fold.run(until_idle=True)
        for _ in range(3):  # the runner reads the player's roll, then sends its own move
            self.runner.step()
        self.fold.run(until_idle=True)
        self.runner.step()  # and reads its own move

    def after_rollback(self) -> None:
        time.sleep(BEAT_S)  # the runner's next step beats
        services = self.services
        self.fold = FoldWorker(services.redis, services.store, services.bus, block_ms=20)  # as runner.py does
        self.runner.step()


def test_a_bot_runner_ahead_of_the_store_loads_its_games_again_and_plays_on(rolling: RollbackRedis) -> None:
    game = BotGame(rolling, "g1")
    game.round()
    rolling.snapshot()
    kept = game.seq
    for _ in range(3):
        game.round()
    assert game.seq == game.runner.games["g1"].loaded.seq == kept + 6
    rolling.roll_back()
    game.after_rollback()  # its beat reads the positions of its games: the store is behind, loaded again
    assert game.runner.games["g1"].loaded.seq == kept
    for n in range(1, 5):  # the bot moves at positions the lost history had used, under the same ids
        game.round()
        assert game.seq == kept + 2 * n
    assert game.services.redis.xlen(keys.DEAD_LETTERS) == 0


def test_a_game_whose_end_a_rollback_took_back_is_played_on_by_the_bot_runner(rolling: RollbackRedis) -> None:
    game = BotGame(rolling, "g3", goal=15)
    rolling.snapshot()  # a die moves a seat 6 at most: nobody wins the first round
    kept = game.seq
    game.round()  # the runner's first beat takes the game up
    # No beat looks at the live index (which the end takes the game out of) between the end and the
    # rollback, as may happen: the runner drops the game when it sees the end, and must take it up again.
    game.runner._next_beat = float("inf")
    for _ in range(30):
        if game.services.store.meta("g3").status == "finished":
            break
        game.round()
    game.runner.step()
    assert game.services.store.meta("g3").status == "finished" and "g3" not in game.runner.games
    rolling.roll_back()
    game.runner._next_beat = 0.0
    game.after_rollback()
    assert game.services.store.meta("g3").status == "live"
    assert game.runner.games["g3"].loaded.seq == kept
    game.round()
    assert game.seq == kept + 2


def test_a_bot_move_decided_past_the_games_position_is_dead_lettered_not_recorded(
    redis_url: str, redis_client: redis.Redis
) -> None:
    """A bot's move from events the store lost must not take the id the bot's move at that position will
    use when the game gets there again."""
    services = services_for(redis_url)
    new_race(services, "g2", seats=2)
    meta = services.store.meta("g2")
    future = bot_command_id(meta.seed, meta.last_seq + 1, 1)
    services.bus.submit("g2", 1, b'{"type":"Roll"}', future, origin="bot")
    FoldWorker(services.redis, services.store, services.bus, block_ms=20).run(until_idle=True)
    assert services.store.result("g2", future, 1, origin="bot") is None
    assert services.redis.xlen(keys.DEAD_LETTERS) == 1
    services.bus.submit("g2", 0, b'{"type":"Roll"}')
    services.bus.submit("g2", 1, b'{"type":"Roll"}', future, origin="bot")  # now at its position
    FoldWorker(services.redis, services.store, services.bus, block_ms=20).run(until_idle=True)
    record = services.store.result("g2", future, 1, origin="bot")
    assert record is not None and record.status == "applied", record


def test_standing_of_a_feed_against_the_stores_position() -> None:
    assert standing(5, "aa", b"5:aa") is Standing.SAME
    assert standing(5, "aa", b"4:bb") is Standing.STALE  # the store is behind
    assert standing(5, "aa", b"5:bb") is Standing.STALE  # another event at the feed's last seq
    assert standing(5, "aa", b"9:cc") is Standing.AHEAD  # whether from the feed's last: the event there
    assert standing(5, "aa", None) is Standing.STALE  # the game is gone


def test_a_feed_is_stale_once_the_store_went_past_it_on_another_history(rolling: RollbackRedis) -> None:
    """Rolled back, then moved on past where the feed stood before anyone looked: the store's event at the
    feed's last seq is another (its time differs), so the feed is read again."""
    services = services_for(rolling.url)
    new_race(services, "g4", seats=2)

    def rolls(count: int) -> None:
        for n in range(count):
            services.bus.submit("g4", n % 2, b'{"type":"Roll"}')
            FoldWorker(services.redis, services.store, services.bus, block_ms=20).run(until_idle=True)

    async def check(held: GameFeed | None) -> tuple[GameFeed, list[GameFeed]]:
        """``held`` (else the game's feed loaded now), and the feeds of the two the store finds stale."""
        client = aioredis.Redis.from_url(rolling.url)
        try:
            feed = held or await FeedHub(client, rolling.url, services.store.games)._load("g4")
            return feed, await stale_feeds(client, [feed])
        finally:
            await client.aclose()

    rolling.snapshot()
    rolls(2)
    held, stale = asyncio.run(check(None))
    assert held.seq == 3 and stale == []
    rolling.roll_back()
    time.sleep(0.01)  # another millisecond on the events' clock
    rolls(4)
    fresh, stale = asyncio.run(check(None))
    assert fresh.seq == 5 and stale == []
    assert asyncio.run(check(held))[1] == [held]
    # and the event after it, read by the hub, does not link to the feed's last: the check is woken
    (fourth,) = services.store.read("g4", after_seq=3, count=1)
    assert held.add(fourth) is None and held.diverged and held.seq == 3
