"""Issue 43's attacks on open tables, each made, then the refusal asserted (findings 9 and 16): a table with
bots started at once made games without end whatever the admin token said; twenty opens at once by one
account made seven tables; the limit counted only the 200 tables the lobby lists; forty-one accounts pushed
every real table out of the lobby; and open tables never expired."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import msgspec
import pytest
import redis
import redis.asyncio

from events import keys
from services.audit.verify import verify_lines
from services.export import export_lines
from services.players import tables
from services.players.table_clock import expire_idle
from services.players.table_settings import TableSettings
from services.players.table_start import reconcile_tables
from tests.conftest import TEST_GAMES
from tests.support.client import wait_until
from tests.support.harness import ServerThread, running_stack
from tests.support.pipeline import services_for
from tests.support.players_stack import sign_up

QUOTAS = TableSettings(open_per_account=5, open_per_address=8, games_per_account=2, games_per_address=3)
RACE = {"game": "race", "seats": 3}
QUICK_BOT_RACE = {"game": "race", "seats": 2, "bots": ["random"], "options": {"goal": 1}}
"""A race won by its first roll: seat 0, the creator, ends it at once."""
ONE_ADDRESS = "127.0.0.9"
"""Where two accounts of one person connect from (``sign_up`` gives each its own address otherwise)."""


@pytest.fixture
def stack(redis_url: str, redis_client: redis.Redis) -> Iterator[ServerThread]:
    with running_stack(redis_url, settings={"tables": QUOTAS}, admin_token="the operator's") as server:
        yield server


def test_twenty_opens_at_once_by_one_account_make_five_tables(stack: ServerThread) -> None:
    ann = sign_up(stack.base, "ann")
    with ThreadPoolExecutor(20) as pool:
        answers = list(pool.map(lambda _: ann.post("/api/tables", json=RACE), range(20)))
    codes = sorted(a.status_code for a in answers)
    assert codes == [201] * 5 + [409] * 15
    assert {a.json()["error"] for a in answers if a.status_code == 409} == {"too_many_tables"}
    assert len(httpx.get(f"{stack.base}/api/tables").json()["tables"]) == 5


def test_the_limit_counts_tables_the_lobby_does_not_list(stack: ServerThread, redis_url: str) -> None:
    ann = sign_up(stack.base, "ann")
    for _ in range(5):
        assert ann.post("/api/tables", json=RACE).status_code == 201
    crowd(redis_url, creators=tables.LOBBY_READ, each=1)  # newer tables: ann's are past the lobby's reading
    listed = httpx.get(f"{stack.base}/api/tables").json()["tables"]
    assert len(listed) == tables.OPEN_LIMIT and "ann" not in {t["creator"] for t in listed}
    sixth = ann.post("/api/tables", json=RACE)
    assert sixth.status_code == 409 and sixth.json()["error"] == "too_many_tables"


def test_forty_one_accounts_with_five_tables_each_do_not_push_a_real_table_out(
    stack: ServerThread, redis_url: str
) -> None:
    ann = sign_up(stack.base, "ann")
    real = ann.post("/api/tables", json=RACE).json()["table_id"]
    crowd(redis_url, creators=41, each=5)  # 205 newer tables: before, ann's was the 206th, unlisted
    listed = httpx.get(f"{stack.base}/api/tables").json()["tables"]
    assert len(listed) == tables.OPEN_LIMIT
    assert real in [t["table_id"] for t in listed[:42]]  # each creator's newest first, ann's among them


def test_one_address_is_held_to_its_open_tables_whatever_the_accounts(stack: ServerThread) -> None:
    accounts = [sign_up(stack.base, name, address=ONE_ADDRESS) for name in ("ann", "bob")]
    opened = [a.post("/api/tables", json=RACE).status_code for a in accounts for _ in range(5)]
    assert opened == [201] * 5 + [201] * 3 + [409] * 2  # 8 from this address, whoever opens them


def test_a_table_nobody_fills_expires(stack: ServerThread, redis_url: str, redis_client: redis.Redis) -> None:
    ann, bob = sign_up(stack.base, "ann"), sign_up(stack.base, "bob")
    for _ in range(5):
        table = ann.post("/api/tables", json=RACE).json()
    too_many = ann.post("/api/tables", json=RACE)
    assert too_many.status_code == 409
    hour_ago = int(redis_client.hget(tables.table_key(table["table_id"]), "created_ms") or 0) - 3_600_000
    for raw_id in redis_client.zrange(tables.OPEN, 0, -1):  # an hour passes (QUOTAS.open_minutes: 60)
        redis_client.hset(tables.table_key(raw_id.decode()), "created_ms", hour_ago)
        redis_client.zadd(tables.OPEN, {raw_id.decode(): hour_ago})
    assert httpx.get(f"{stack.base}/api/tables").json()["tables"] == []  # at once, before any reconciler
    late = bob.post(f"/api/tables/{table['table_id']}/join")
    assert late.status_code == 409 and late.json()["error"] == "table_closed"
    assert ann.post("/api/tables", json=RACE).status_code == 201  # the expired ones no longer count
    services = services_for(redis_url)
    services.settings = msgspec.structs.replace(services.settings, tables=QUOTAS)
    reconcile_tables(services, redis_url, tables.now_ms())
    assert ann.get(f"/api/tables/{table['table_id']}").json()["status"] == "expired"
    assert len(httpx.get(f"{stack.base}/api/tables").json()["tables"]) == 1


def test_tables_with_bots_make_live_games_only_within_the_accounts_quota(stack: ServerThread) -> None:
    ann = sign_up(stack.base, "ann")
    anonymous = httpx.post(f"{stack.base}/api/games", json={"game": "race", "seats": 2})
    assert anonymous.status_code == 401  # the admin token closes POST /api/games
    waiting = [ann.post("/api/tables", json=QUICK_BOT_RACE).json()["table_id"] for _ in range(3)]
    games = [ann.post(f"/api/tables/{t}/start").json()["game_id"] for t in waiting[:2]]
    third = ann.post(f"/api/tables/{waiting[2]}/start")  # opened before the others started: refused now
    assert third.status_code == 409 and third.json()["error"] == "too_many_games"
    assert ann.get(f"/api/tables/{waiting[2]}").json()["status"] == "open"  # still there, to start later
    fourth = ann.post("/api/tables", json=QUICK_BOT_RACE)
    assert fourth.status_code == 409 and fourth.json()["error"] == "too_many_games"
    rolled = ann.post(f"/api/games/{games[0]}/commands?wait=true", json={"command": {"type": "Roll"}})
    assert rolled.status_code == 200  # goal 1: the first roll wins, the game is over
    assert ann.get(f"/api/games/{games[0]}").json()["status"] == "finished"
    assert ann.post(f"/api/tables/{waiting[2]}/start").json()["status"] == "started"  # a game ended: room


def test_one_address_is_held_to_its_live_table_games_whatever_the_accounts(stack: ServerThread) -> None:
    started = []
    for name in ("ann", "bob"):
        player = sign_up(stack.base, name, address=ONE_ADDRESS)
        for _ in range(2):
            table = player.post("/api/tables", json=QUICK_BOT_RACE)
            if table.status_code == 201:
                started.append(player.post(f"/api/tables/{table.json()['table_id']}/start").status_code)
            else:
                started.append(table.status_code)
    assert started == [200, 200, 200, 409]  # QUOTAS.games_per_address: 3


def crowd(url: str, creators: int, each: int) -> None:
    """``creators`` accounts open ``each`` tables, from as many addresses (straight into Redis: the attack
    is their number, not how they were signed up)."""
    many = TableSettings(open_per_account=each, open_per_address=each)

    async def open_all() -> None:
        client = redis.asyncio.Redis.from_url(url)
        try:
            for n in range(creators):
                for _ in range(each):
                    spec: tuple[str, int, dict[str, Any], bool, list[str]] = ("race", 3, {}, False, [])
                    await tables.open_table(client, many, spec, f"crowd{n}", f"10.0.{n // 250}.{n % 250}")
        finally:
            await client.aclose()

    asyncio.run(open_all())


def test_table_games_their_players_left_end_and_give_the_quota_back(
    stack: ServerThread, redis_url: str, redis_client: redis.Redis
) -> None:
    ann, bob = sign_up(stack.base, "ann"), sign_up(stack.base, "bob")
    games = []
    for _ in range(2):
        table = ann.post("/api/tables", json={"game": "race", "seats": 2, "options": {"goal": 5}}).json()
        games.append(bob.post(f"/api/tables/{table['table_id']}/join").json()["game_id"])
    held = ann.post("/api/tables", json=RACE)
    assert held.status_code == 409 and held.json()["error"] == "too_many_games"  # nobody plays them
    services = services_for(redis_url)
    idle_ms = QUOTAS.idle_hours * 3_600_000
    for _ in range(100):  # each pass as if the seats to act had been idle too long since the last move
        seqs = [redis_client.xlen(keys.events(g)) for g in games]
        if expire_idle(services, QUOTAS.idle_hours, tables.now_ms() + idle_ms + 1, every_ms=1) == 0:
            break
        wait_until(lambda seqs=seqs: [redis_client.xlen(keys.events(g)) for g in games] != seqs)
        time.sleep(0.002)  # the pass's once-a-minute key (here once a millisecond) lapses
    for game_id in games:
        ended = ann.get(f"/api/games/{game_id}").json()
        assert ended["status"] == "finished", ended
        report = verify_lines(list(export_lines(services.store, game_id)), TEST_GAMES)
        assert report.ok and report.decisions_checked, report.problems  # each timeout is the clock's, checked
    assert ann.post("/api/tables", json=RACE).status_code == 201  # their quota is free again


def test_starts_at_once_by_one_account_stop_at_its_live_games_quota(stack: ServerThread) -> None:
    ann = sign_up(stack.base, "ann")
    waiting = [ann.post("/api/tables", json=QUICK_BOT_RACE).json()["table_id"] for _ in range(5)]
    with ThreadPoolExecutor(5) as pool:
        answers = list(pool.map(lambda t: ann.post(f"/api/tables/{t}/start"), waiting))
    assert sorted(a.status_code for a in answers) == [200, 200, 409, 409, 409]  # QUOTAS.games_per_account
    assert {a.json()["error"] for a in answers if a.status_code == 409} == {"too_many_games"}
    assert len(ann.get("/api/me/games").json()["games"]) == 2


def test_a_broken_table_record_fails_neither_the_lobby_nor_the_reconciler(
    stack: ServerThread, redis_url: str, redis_client: redis.Redis
) -> None:
    ann = sign_up(stack.base, "ann")
    good = ann.post("/api/tables", json=RACE).json()["table_id"]
    broken: dict[str, dict[str, str]] = {
        "nofields": {"status": "open", "creator": "mallory"},
        "garbage": {"status": "open", "creator": "mallory", "seats": "x"},
    }
    for bad, fields in broken.items():
        for field, value in fields.items():
            redis_client.hset(tables.table_key(bad), field, value)
        redis_client.zadd(tables.OPEN, {bad: tables.now_ms()})
    redis_client.hset(
        tables.table_key("nocreated"), mapping={"status": "open", "creator": "x", "game": "race"}
    )
    redis_client.zadd(tables.OPEN, {"nocreated": 0})
    listed = httpx.get(f"{stack.base}/api/tables")
    assert listed.status_code == 200 and [t["table_id"] for t in listed.json()["tables"]] == [good]
    assert ann.get("/api/tables/garbage").status_code == 404
    assert ann.post("/api/tables/nofields/join").status_code == 404
    services = services_for(redis_url)
    reconcile_tables(services, redis_url, tables.now_ms() + 2 * 3_600_000)  # past every table's time
    assert redis_client.zcard(tables.OPEN) == 0
    assert ann.get(f"/api/tables/{good}").json()["status"] == "expired"
