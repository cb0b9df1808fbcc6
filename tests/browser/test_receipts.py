"""Receipts for players and spectators (issue 41): the game page keeps each event's ``(seq, hash)`` it was shown
and the game's seed commitment in IndexedDB, shows them in its *Fair play* disclosure, and saves them with the
log's receipts as the file ``harbormaster verify --receipts`` reads."""

from __future__ import annotations

import base64
import json
import os
import random
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest
import redis

from events import codec, keys
from events.chain import sealed
from events.tlog.note import Signer
from events.tlog.seal import seal
from tests.browser.axe import axe_script, serious_violations
from tests.browser.play import Clicks, take_one_step
from tests.browser.waiting import wait_until
from tests.support.client import create, post_command
from tests.support.harness import ServerThread, running_stack
from workers.log_sequencer import LogSequencer

ORIGIN = "harbormaster.test/log"

KEPT = """
(gameId) => new Promise((resolve, reject) => {
  const opened = indexedDB.open("harbormaster-receipts", 1);
  opened.onerror = () => reject(opened.error);
  opened.onsuccess = () => {
    const db = opened.result;
    if (!db.objectStoreNames.contains("games")) return resolve(null);
    const read = db.transaction("games").objectStore("games").get(gameId);
    read.onsuccess = () => resolve(read.result || null);
  };
})
"""
"""What the page keeps in IndexedDB for a game (``null`` before its first save)."""
ON_THE_PAGE = "(id) => { const r = document.getElementById(id).getBoundingClientRect(); return [r.left + scrollX, r.top + scrollY, r.width, r.height]; }"


@pytest.fixture
def quick_stack(redis_url: str, redis_client: redis.Redis) -> Iterator[ServerThread]:
    with running_stack(redis_url, bot_delay_s=0.0) as server:
        yield server


def stored_hashes(client: redis.Redis, game_id: str) -> dict[int, str]:
    entries: list[tuple[bytes, dict[bytes, bytes]]] = client.xrange(keys.events(game_id))  # type: ignore[assignment]
    envelopes = [codec.decode_envelope(fields[b"e"]) for _, fields in entries]
    return {envelope.seq: envelope.hash for envelope in envelopes}


def sealed_hashes(client: redis.Redis, game_id: str) -> dict[int, str]:
    """Each event's seal (what a live game's viewers are shown), from the stored hashes and the game's seed."""
    secret = bytes(client.hget(keys.meta(game_id), "seed") or b"")  # type: ignore[arg-type]
    return {
        seq: seal(secret, game_id, seq, chain_hash)
        for seq, chain_hash in stored_hashes(client, game_id).items()
    }


def seed_commitment(client: redis.Redis, game_id: str) -> str:
    raw = client.hget(keys.meta(game_id), "header")
    return codec.decode_header(bytes(raw or b"")).seed_commitment  # type: ignore[arg-type]


def kept(page: Any, game_id: str, upto: int) -> dict[str, Any]:
    """The page's IndexedDB record of the game once it holds event ``upto`` (it is written within a second)."""
    for _ in range(100):
        record: dict[str, Any] | None = page.evaluate(KEPT, game_id)
        if record and any(seq == upto for seq, _ in record["seen"]):
            return record
        page.wait_for_timeout(100)
    raise AssertionError(f"the page never kept event {upto} of {game_id}: {record}")


def play_moves(page: Any, api: httpx.Client, game_id: str, moves: int, seed: int = 3) -> None:
    rng, clicks = random.Random(seed), Clicks()
    while _moves_of_seat_0(api, game_id) < moves:
        if not take_one_step(page, rng, clicks):
            page.wait_for_timeout(100)


def _moves_of_seat_0(api: httpx.Client, game_id: str) -> int:
    events = api.get(f"/api/games/{game_id}/events").json()["events"]
    return len({e["command_id"] for e in events if e["seat"] == 0})


def settled(page: Any, element_id: str) -> list[float]:
    """Where an element lies on the page once it stays there for half a second."""
    where: list[float] = page.evaluate(ON_THE_PAGE, element_id)
    for _ in range(40):
        page.wait_for_timeout(500)
        now: list[float] = page.evaluate(ON_THE_PAGE, element_id)
        if now == where:
            return now
        where = now
    raise AssertionError(f"#{element_id} never stopped moving")


def shown_seq(page: Any) -> int:
    return int(page.evaluate("document.body.dataset.seq"))


def download_receipts(page: Any, folder: Path) -> dict[str, Any]:
    if page.evaluate("!document.getElementById('audit').open"):
        page.locator("#audit summary").click()
    with page.expect_download() as download:
        page.locator("#download-receipts").click()
    path = folder / download.value.suggested_filename
    download.value.save_as(path)
    saved: dict[str, Any] = json.loads(path.read_text())
    return saved


def test_the_page_keeps_what_it_was_shown_across_a_reload_and_saves_it(
    browser: Any, quick_stack: ServerThread, redis_client: redis.Redis, tmp_path: Path
) -> None:
    context = browser.new_context(
        viewport={"width": 1360, "height": 1000},
        accept_downloads=True,
        permissions=["clipboard-read", "clipboard-write"],
    )
    page, watcher = context.new_page(), browser.new_page()
    with httpx.Client(base_url=quick_stack.base, timeout=30) as api:
        game = create(api, "manila", 3, bots={"1": "greedy", "2": "random"})
        gid = game["game_id"]
        commitment = seed_commitment(redis_client, gid)
        page.goto(f"{quick_stack.base}/games/{gid}#token={game['seats'][0]['token']}")
        watcher.goto(f"{quick_stack.base}/games/{gid}")
        page.locator("#board svg.board-manila").wait_for()
        brief = page.locator("#audit-brief")  # on screen from the first move, the disclosure closed
        assert brief.is_visible() and brief.get_attribute("title") == commitment
        assert commitment[:8] in brief.inner_text()
        play_moves(page, api, gid, 2)
        upto = shown_seq(page)
        record = kept(page, gid, upto)
        truth = sealed_hashes(redis_client, gid)  # a live game is shown its events' seals
        assert record["seed_commitment"] == commitment
        assert [seq for seq, _ in record["seen"]] == list(range(1, len(record["seen"]) + 1))
        assert all(
            truth[seq] == shown for seq, shown in record["seen"]
        )  # each seal as the store's hash gives
        assert record["receipts"] == []  # no log runs here: the receipt fetch answered "not yet", quietly
        assert page.locator("#audit-warnings .notice").count() == 0
        page.reload()
        page.locator("#board svg.board-manila").wait_for()
        again = kept(page, gid, upto)
        assert again["seen"][: len(record["seen"])] == record["seen"]  # kept across the reload
        saved = download_receipts(page, tmp_path)
        page.locator("#audit-copy").click()  # the whole seed commitment, for the player to keep or compare
        assert page.evaluate("navigator.clipboard.readText()") == commitment
        spectator = kept(watcher, gid, shown_seq(watcher))
    assert saved["format"] == "harbormaster-receipts/1" and set(saved["games"]) == {gid}
    mine = saved["games"][gid]
    assert mine["seed_commitment"] == commitment and mine["receipts"] == []
    assert [tuple(pair) for pair in mine["seen"]][: len(record["seen"])] == [tuple(p) for p in record["seen"]]
    assert spectator["seen"] and all(truth.get(seq, shown) == shown for seq, shown in spectator["seen"])
    assert spectator["seed_commitment"] == commitment
    context.close()


def test_on_a_phone_the_disclosure_is_tappable_and_never_moves_the_board(
    browser: Any, quick_stack: ServerThread
) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page = context.new_page()
    with httpx.Client(base_url=quick_stack.base, timeout=30) as api:
        game = create(api, "elcapitan", 3, bots={"1": "greedy", "2": "random"})
        page.goto(f"{quick_stack.base}/games/{game['game_id']}#token={game['seats'][0]['token']}")
        page.locator("#board svg.board-elcapitan").wait_for()
        page.locator("#audit-brief").wait_for()
        board = settled(page, "board")  # once the action bar holds the first decision
        page.locator("#audit summary").tap()
        page.locator("#download-receipts").wait_for()
        assert page.evaluate(ON_THE_PAGE, "board") == board  # the board stays where it was on the page
        for selector in ("#audit summary", "#download-receipts", "#audit-copy"):
            box = page.locator(selector).bounding_box()
            assert box is not None and box["height"] >= 44 and box["width"] >= 44, (selector, box)
        assert page.evaluate("document.documentElement.scrollWidth") <= 390  # nothing sideways
        assert (
            serious_violations(page, axe_script()) == []
        )  # opened, no serious or critical axe-core violation
    context.close()


# --- the operator rewrites a move: the player's receipts catch it -----------------------------------------


@pytest.fixture
def logged_stack(redis_url: str, redis_client: redis.Redis) -> Iterator[tuple[ServerThread, LogSequencer]]:
    """The stack with the log's sequencer every 0.2 s, as ``serve`` runs it (its own thread)."""
    with running_stack(redis_url, bot_delay_s=0.0) as server:
        sequencer = LogSequencer(redis.Redis.from_url(redis_url), Signer.generate(ORIGIN), interval_s=0.2)
        thread = threading.Thread(target=sequencer.run, daemon=True)
        thread.start()
        try:
            yield server, sequencer
        finally:
            sequencer.stopping.set()
            thread.join(timeout=15)


def covered(page: Any, upto: int) -> None:
    """Wait until the page holds a receipt of the log covering event ``upto`` of its game."""
    wait_until(page, f"Number(document.getElementById('audit').dataset.covered) >= {upto}", timeout_ms=60_000)


def bumped(payload: bytes) -> bytes | None:
    """The event's payload with its first number other than a seat one higher (``None``: it has none)."""
    fields = msgspec.msgpack.decode(payload)
    if not isinstance(fields, dict):
        return None
    for name, value in fields.items():
        if type(value) is int and name != "seat":
            return msgspec.msgpack.encode({**fields, name: value + 1})
    return None


def rewrite_a_move(client: redis.Redis, game_id: str, after: int) -> int:
    """As a forger with Redis access would: change the payload of seat 0's first event with a number past
    ``after``, and re-hash the chain from there with ``events.chain``; returns that event's seq."""
    stream = keys.events(game_id)
    entries: list[tuple[bytes, dict[bytes, bytes]]] = client.xrange(stream)  # type: ignore[assignment]
    envelopes = [codec.decode_envelope(fields[b"e"]) for _, fields in entries]
    target = next(e.seq for e in envelopes if e.seq > after and e.seat == 0 and bumped(e.payload) is not None)
    prev = envelopes[target - 2].hash
    pipe = client.pipeline(transaction=True)
    pipe.delete(stream)
    for (entry_id, fields), envelope in zip(entries, envelopes, strict=True):
        if envelope.seq >= target:
            payload = bumped(envelope.payload) if envelope.seq == target else envelope.payload
            envelope = sealed(msgspec.structs.replace(envelope, payload=payload, prev_hash=prev, hash=""))
            prev = envelope.hash
        rewritten: dict[Any, Any] = dict(fields)
        rewritten[b"e"] = codec.encode_envelope(envelope)
        pipe.xadd(stream, rewritten, id=entry_id)
    pipe.hset(keys.results(game_id), keys.POSITION_FIELD, f"{envelopes[-1].seq}:{prev}")
    pipe.execute()
    return target


def play_to_the_end(api: httpx.Client, game_id: str, token: str) -> None:
    """Seat 0's moves at random over HTTP (the bots play theirs) until the game is over."""
    rng = random.Random(7)
    for _ in range(20_000):
        state = api.get(f"/api/games/{game_id}").json()
        if state["status"] == "finished":
            return
        if 0 not in state["to_act"]:
            time.sleep(0.02)
            continue
        legal = api.get(f"/api/games/{game_id}/legal", headers={"Authorization": f"Bearer {token}"}).json()
        if legal:  # else a bot moved meanwhile
            post_command(api, game_id, token, {"command": rng.choice(legal)})
    raise AssertionError(f"{game_id} did not end")


def hm(*args: str, url: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HARBORMASTER_LOG_LEVEL": "warning"}
    env.pop("REDIS_URL", None)
    if url:
        env["REDIS_URL"] = url
    command = [sys.executable, "-m", "services.cli", *args]
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)


def test_a_move_rewritten_in_redis_is_caught_by_the_players_receipts(
    browser: Any,
    logged_stack: tuple[ServerThread, LogSequencer],
    redis_url: str,
    redis_client: redis.Redis,
    tmp_path: Path,
) -> None:
    stack, sequencer = logged_stack
    context = browser.new_context(viewport={"width": 1360, "height": 1000}, accept_downloads=True)
    pages: dict[str, Any] = {}
    asked: list[str] = []  # every receipt request any page makes
    context.on("request", lambda r: asked.append(r.url) if r.url.endswith("/receipt") else None)
    started = time.monotonic()
    with httpx.Client(base_url=stack.base, timeout=30) as api:
        games = [create(api, "manila", 3, bots={"1": "greedy", "2": "random"}) for _ in range(2)]
        for game in games:  # two games played alongside: the second one is left alone
            page = pages[game["game_id"]] = context.new_page()
            page.goto(f"{stack.base}/games/{game['game_id']}#token={game['seats'][0]['token']}")
            page.locator("#board svg.board-manila").wait_for()
        watcher = browser.new_page()  # a spectator, in a browser of its own, gets receipts too
        watcher.goto(f"{stack.base}/games/{games[1]['game_id']}")
        for n, (game_id, page) in enumerate(pages.items()):
            play_moves(page, api, game_id, 3, seed=n)
        saved: dict[str, dict[str, Any]] = {}
        for game_id, page in pages.items():
            upto = shown_seq(page)  # seat 0 is to act again: the game stands still
            covered(page, upto)
            saved[game_id] = download_receipts(page, tmp_path / game_id)
        covered(watcher, shown_seq(watcher))
        assert kept(watcher, games[1]["game_id"], shown_seq(watcher))["receipts"]
        watcher.close()
        seconds = time.monotonic() - started
        for game in games:  # both played to the end, whose event reveals the seed every seal is keyed with
            play_to_the_end(api, game["game_id"], game["seats"][0]["token"])
    sequencer.stopping.set()
    for game_id, receipts in saved.items():  # batched: a request every 1.5 s at most, never one a move
        mine = [url for url in asked if f"/games/{game_id}/" in url]
        assert 1 <= len(mine) <= 2 + seconds / 1.5, (len(mine), seconds)
        assert len(mine) < len(receipts["games"][game_id]["seen"]) / 2
    forged, untouched = list(pages)
    first_move = min(seq for seq, _ in saved[forged]["games"][forged]["seen"] if seq > 1)
    seq = rewrite_a_move(redis_client, forged, first_move)
    for game_id, receipts in saved.items():
        mine = receipts["games"][game_id]
        assert receipts["log"]["origin"] == ORIGIN and mine["receipts"], "the log's receipts were fetched"
        assert any(s >= seq for s, _ in mine["seen"])
        (tmp_path / f"{game_id}.receipts.json").write_text(json.dumps(receipts))
        exported = hm("export", game_id, url=redis_url)
        assert exported.returncode == 0, exported.stderr
        (tmp_path / f"{game_id}.jsonl").write_text(exported.stdout)
    receipts_of = {g: str(tmp_path / f"{g}.receipts.json") for g in pages}
    caught = hm("verify", str(tmp_path / f"{forged}.jsonl"), "--receipts", receipts_of[forged])
    assert caught.returncode != 0, caught.stdout
    assert f"event {seq} " in caught.stdout + caught.stderr, (seq, caught.stdout, caught.stderr)
    honest = hm("verify", str(tmp_path / f"{untouched}.jsonl"), "--receipts", receipts_of[untouched])
    assert honest.returncode == 0, (honest.stdout, honest.stderr)
    context.close()


def test_at_the_end_a_spectator_keeps_the_receipt_of_the_games_last_event(
    browser: Any, logged_stack: tuple[ServerThread, LogSequencer], redis_client: redis.Redis
) -> None:
    stack, _ = logged_stack
    watcher = browser.new_page()
    with httpx.Client(base_url=stack.base, timeout=30) as api:
        bots = {str(seat): "greedy" for seat in range(3)}
        game_id = create(api, "manila", 3, bots=bots)["game_id"]
        watcher.goto(f"{stack.base}/games/{game_id}")
        wait_until(watcher, "document.body.dataset.status === 'finished'", timeout_ms=240_000)
        last = max(stored_hashes(redis_client, game_id))
        covered(watcher, last)
    for _ in range(50):  # kept in IndexedDB within a second of its arrival
        record = kept(watcher, game_id, last)
        heads = [json.loads(base64.b64decode(receipt["leaf"])) for receipt in record["receipts"]]
        if any(head["seq"] == last for head in heads):
            break
        watcher.wait_for_timeout(100)
    assert {"kind": "head", "seq": last, "finished": True} in [
        {key: head.get(key) for key in ("kind", "seq", "finished")} for head in heads
    ]
    assert dict(map(tuple, record["seen"]))[last] == stored_hashes(redis_client, game_id)[last]
    watcher.close()
