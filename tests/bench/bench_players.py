"""Players' figures (issue 35): sign-ins a second one gateway checks (Argon2id, the default parameters),
and chat messages a second fanned out to 1,000 spectators of one game.

The gateway runs as its own process (``harbormaster gateway``) on an embedded Redis (or ``REDIS_URL``), with
every per-client limit off (all the bench's clients come from one address); the spectators' sockets are in
two client processes. Prints figures; never asserts on time. ``BENCH_CHAT_MESSAGES`` sets how many
messages are sent (default 300), ``BENCH_SIGNIN_SECONDS`` how long sign-ins are timed (default 5).
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing as mp
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import websockets

from services.players.accounts import HASHING_AT_ONCE
from services.redis_launcher import EmbeddedRedis
from tests.bench.bench_gateway import _spawn, _wait_ready
from tests.bench.load_generator import _process_cpu_seconds
from tests.support.harness import free_port

SPECTATORS = 1000
ACCOUNTS = 20
SIGNERS = 8
"""Clients signing in at once (more than the gateway hashes at once: the rest wait their turn)."""
POSTERS = 8
PLAYERS_ENV = {"HARBORMASTER_SIGNIN_PER_NAME": "0", "HARBORMASTER_SIGNIN_PER_ADDRESS": "0",
               "HARBORMASTER_CHAT_PER_SECOND": "0", "HARBORMASTER_CHAT_PER_ADDRESS": "0"}  # fmt: skip


# --- sign-ins ---------------------------------------------------------------------------------------------


async def _sign_ins(base: str, seconds: float, gateway_pid: int) -> tuple[float, float, float]:
    """Sign-ins a second with ``SIGNERS`` clients at once; their median time and CPU per sign-in (ms)."""
    async with httpx.AsyncClient(base_url=base, timeout=60) as client:
        for i in range(ACCOUNTS):
            made = await client.post("/api/accounts", json={"name": f"bench{i}", "password": f"password {i}"})
            assert made.status_code in (201, 409), made.text
        times: list[float] = []
        until = time.monotonic() + seconds

        async def signer(k: int) -> None:
            i = k
            while time.monotonic() < until:
                started = time.perf_counter()
                answer = await client.post(
                    "/api/session",
                    json={"name": f"bench{i % ACCOUNTS}", "password": f"password {i % ACCOUNTS}"},
                )
                assert answer.status_code == 200, answer.text
                times.append(time.perf_counter() - started)
                i += SIGNERS

        cpu_before, started = _process_cpu_seconds(gateway_pid), time.perf_counter()
        await asyncio.gather(*(signer(k) for k in range(SIGNERS)))
        elapsed, cpu = time.perf_counter() - started, _process_cpu_seconds(gateway_pid) - cpu_before
    return len(times) / elapsed, statistics.median(times) * 1000, cpu / len(times) * 1000


# --- chat fanned out to spectators ------------------------------------------------------------------------


async def _watch(url: str, count: int, expected: int, ready: Any, results: Any, hold_s: float) -> None:
    """Open ``count`` spectator sockets; report each message's last arrival and the frames received."""
    sockets = []
    last: dict[str, float] = {}
    received = 0

    async def reader(socket: Any) -> None:
        nonlocal received
        seen = 0
        async for message in socket:
            frame = json.loads(message)
            if frame.get("type") == "chat":
                last[frame["id"]] = time.time()
                received += 1
                seen += 1
                if seen == expected:
                    return

    for _ in range(count):
        sockets.append(await websockets.connect(url, max_size=None, open_timeout=60, ping_interval=None))
    ready.put(len(sockets))
    tasks = [asyncio.create_task(reader(s)) for s in sockets]
    await asyncio.wait(tasks, timeout=hold_s)
    for task in tasks:
        task.cancel()
    results.put((last, received))
    for socket in sockets:
        await socket.close()


def _watch_process(url: str, count: int, expected: int, ready: Any, results: Any, hold_s: float) -> None:
    asyncio.run(_watch(url, count, expected, ready, results, hold_s))


async def _post_all(base: str, game_id: str, token: str, messages: int) -> dict[str, float]:
    """Send ``messages`` chat messages from ``POSTERS`` clients at once; when each was sent, by its id."""
    sent: dict[str, float] = {}
    headers = {"Authorization": f"Bearer {token}"}
    async with httpx.AsyncClient(base_url=base, timeout=60, headers=headers) as client:

        async def poster(k: int) -> None:
            for i in range(k, messages, POSTERS):
                at = time.time()
                answer = await client.post(f"/api/games/{game_id}/chat", json={"text": f"message {i}"})
                assert answer.status_code == 201, answer.text
                sent[answer.json()["id"]] = at

        await asyncio.gather(*(poster(k) for k in range(POSTERS)))
    return sent


def _chat_fanout(base: str, ws_base: str, messages: int, gateway_pid: int) -> tuple[float, float, int, float]:
    """Messages a second reaching all ``SPECTATORS``, the median time from a post to the last spectator's
    frame, and the frames that never arrived."""
    with httpx.Client(base_url=base, timeout=30) as api:
        body = api.post("/api/games", json={"game": "race", "seats": 1, "options": {"goal": 10**9}}).json()
    game_id, token = body["game_id"], body["seats"][0]["token"]
    ctx = mp.get_context("spawn")
    ready, results = ctx.Queue(), ctx.Queue()
    procs = [ctx.Process(target=_watch_process, args=(f"{ws_base}/ws/games/{game_id}", SPECTATORS // 2, messages,
                                                      ready, results, 120.0)) for _ in range(2)]  # fmt: skip
    for proc in procs:
        proc.start()
    opened = sum(ready.get(timeout=300) for _ in procs)
    cpu_before = _process_cpu_seconds(gateway_pid)
    sent = asyncio.run(_post_all(base, game_id, token, messages))
    lasts: dict[str, float] = {}
    received = 0
    for _ in procs:
        last, count = results.get(timeout=300)
        received += count
        for message_id, at in last.items():
            lasts[message_id] = max(at, lasts.get(message_id, 0.0))
    cpu_ms = (_process_cpu_seconds(gateway_pid) - cpu_before) / messages * 1000
    for proc in procs:
        proc.join(timeout=30)
    elapsed = max(lasts.values()) - min(sent.values())
    latency = statistics.median(lasts[i] - at for i, at in sent.items() if i in lasts)
    return messages / elapsed, latency, opened * messages - received, cpu_ms


def main() -> None:
    """Run the measurements and print them."""
    server = None
    url = os.environ.get("REDIS_URL")
    if not url:
        server = EmbeddedRedis(Path(tempfile.mkdtemp(prefix="hm-bench-players-")))
        url = server.start()
    port = free_port()
    base, ws_base = f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}"
    gateway = _spawn(["gateway", "--port", str(port)], url, PLAYERS_ENV)
    try:
        _wait_ready(base)
        rate, median_ms, cpu_ms = asyncio.run(
            _sign_ins(base, float(os.environ.get("BENCH_SIGNIN_SECONDS", 5)), gateway.pid)
        )
        print(f"sign-ins/s, one gateway ({SIGNERS} clients at once, {HASHING_AT_ONCE} Argon2id hashes at once): "
              f"{rate:,.1f}  (median {median_ms:.0f} ms; gateway CPU {cpu_ms:.0f} ms a sign-in)")  # fmt: skip
        messages = int(os.environ.get("BENCH_CHAT_MESSAGES", 300))
        per_s, median_s, lost, cpu_ms = _chat_fanout(base, ws_base, messages, gateway.pid)
        print(f"chat messages/s fanned out to {SPECTATORS:,} spectators of one game: {per_s:,.0f} "
              f"({per_s * SPECTATORS:,.0f} frames/s; {messages} messages from {POSTERS} posters; post -> "
              f"{SPECTATORS:,}th spectator median {median_s * 1000:.0f} ms; frames lost: {lost}; gateway CPU {cpu_ms:.1f} ms a message, all 1,000 frames of it; the "
              f"spectators' clients share the machine's cores)")  # fmt: skip
    finally:
        gateway.terminate()
        gateway.wait(timeout=20)
        if server is not None:
            server.stop()


if __name__ == "__main__":
    main()
