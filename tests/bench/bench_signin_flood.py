"""``python -m tests.bench signin_flood``: one person's sign-in while a crowd signs in.

Issue 43, finding 15: a hundred addresses signing in within their limits had everyone's sign-in wait p50
6.6 s behind Argon2. A gateway (from the folder ``HM_SOURCE`` names, default this checkout: name an older
checkout's to compare) on an embedded Redis, with the per-address and per-name windows off (as if each of
the crowd came from an address of its own); ``FLOODERS`` clients (in a process of their own) sign in with
wrong passwords, each at the default per-address window's pace (30 a minute: 50 attempts a second for 100
of them), and the owner signs in ``OWNER_TRIES`` times, one after the other. Prints the owner's answers:
the time to each (p50, p90), and how many were 200 and how many 503 ``busy`` (refused at once when the
hashers' queue is full).
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from services.redis_launcher import EmbeddedRedis, free_port

FLOODERS = int(os.environ.get("HM_FLOODERS", 100))
OWNER_TRIES = int(os.environ.get("HM_OWNER_TRIES", 30))
PACE_S = 2.0
"""Seconds between two attempts of one of the crowd: 30 a minute, each address within its window."""
ENV = {
    "HARBORMASTER_SIGNIN_PER_NAME": "0",
    "HARBORMASTER_SIGNIN_PER_ADDRESS": "0",
    "HARBORMASTER_SIGNIN_FAILURES_PER_NAME": "0",
    "HARBORMASTER_READS_PER_ADDRESS": "0",
    "HARBORMASTER_LOG_LEVEL": "warning",
}


async def _flood(client: httpx.AsyncClient, stop: asyncio.Event, answers: list[int], k: int) -> None:
    """One of the crowd: an attempt every ``PACE_S`` (the default per-address window, 30 a minute)."""
    await asyncio.sleep(PACE_S * k / FLOODERS)  # spread over the first pace
    n = 0
    while not stop.is_set():
        started = time.monotonic()
        try:
            reply = await client.post(
                "/api/session", json={"name": f"nobody{n % 50}", "password": "wrong guess"}
            )
            answers.append(reply.status_code)
        except httpx.TransportError:  # a kept-alive connection the gateway closed as it was reused
            answers.append(0)
        n += 1
        await asyncio.sleep(max(0.0, PACE_S - (time.monotonic() - started)))


async def _crowd(base: str, done: Any) -> list[int]:
    limits = httpx.Limits(max_connections=FLOODERS + 10)
    async with httpx.AsyncClient(base_url=base, timeout=600, limits=limits) as client:
        stop, flooded = asyncio.Event(), list[int]()
        crowd = [asyncio.create_task(_flood(client, stop, flooded, k)) for k in range(FLOODERS)]
        while not done.is_set():  # until the owner's last try has its answer
            await asyncio.sleep(0.1)
        stop.set()
        await asyncio.gather(*crowd)
    return flooded


def _crowd_process(base: str, done: Any, results: Any) -> None:
    """The crowd in a process of its own: the owner's times are not the crowd's client's event loop."""
    results.put(asyncio.run(_crowd(base, done)))


def _measure(base: str) -> tuple[list[float], list[int], list[int]]:
    with httpx.Client(base_url=base, timeout=600) as owner:
        made = owner.post("/api/accounts", json={"name": "owner", "password": "the right one"})
        assert made.status_code in (201, 409), made.text
    results: Any = multiprocessing.Queue()
    done = multiprocessing.Event()
    crowd = multiprocessing.Process(target=_crowd_process, args=(base, done, results))
    crowd.start()
    time.sleep(PACE_S * 2)  # the crowd's queue builds up
    times, statuses = [], []
    with httpx.Client(base_url=base, timeout=600) as owner:
        for _ in range(OWNER_TRIES):
            started = time.perf_counter()
            try:
                reply = owner.post("/api/session", json={"name": "owner", "password": "the right one"})
                statuses.append(reply.status_code)
            except httpx.TransportError:
                statuses.append(0)
            times.append(time.perf_counter() - started)
    done.set()
    flooded: list[int] = results.get(timeout=900)
    crowd.join(timeout=30)
    return times, statuses, flooded


def main() -> None:
    source = Path(os.environ.get("HM_SOURCE") or Path(__file__).resolve().parents[2]).resolve()
    with tempfile.TemporaryDirectory() as folder, EmbeddedRedis(Path(folder) / "redis") as redis_server:
        port = free_port()
        env = {**os.environ, **ENV, "REDIS_URL": redis_server.url, "PYTHONPATH": str(source)}
        gateway = subprocess.Popen(
            [sys.executable, "-m", "services.cli", "gateway", "--port", str(port)], env=env, cwd=source
        )
        try:
            base = f"http://127.0.0.1:{port}"
            for _ in range(300):
                try:
                    if httpx.get(f"{base}/api/catalog", timeout=1).status_code == 200:
                        break
                except httpx.HTTPError:
                    time.sleep(0.1)
            times, statuses, flooded = _measure(base)
        finally:
            gateway.terminate()
            gateway.wait(30)
    for status in sorted(set(statuses)):
        these = sorted(t * 1000 for t, s in zip(times, statuses, strict=True) if s == status)
        print(f"owner's {status} answers: {len(these)}, p50 {statistics.median(these):.0f} ms")
    ms = sorted(t * 1000 for t in times)
    print(f"source: {source}")
    print(
        f"crowd: {FLOODERS} clients, {len(flooded)} attempts ({flooded.count(503)} answered 503 busy, "
        f"{flooded.count(0)} connection errors)"
    )
    print(
        f"owner: {len(ms)} sign-ins, p50 {statistics.median(ms):.0f} ms, p90 {ms[int(len(ms) * 0.9)]:.0f} ms; "
        f"200: {statuses.count(200)}, 503 busy: {statuses.count(503)}, connection errors: {statuses.count(0)}, other: "
        f"{len(statuses) - statuses.count(200) - statuses.count(503) - statuses.count(0)}"
    )


if __name__ == "__main__":
    main()
