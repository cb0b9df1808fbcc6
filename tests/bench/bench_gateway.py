"""Gateway figures (issue 7): open WebSockets one gateway process holds; the time from an appended event
to its arrival at the 1st and the 1,000th spectator of one game; commands per second over HTTP with 200
concurrent games.

The gateway and a fold worker run as their own processes (``harbormaster gateway`` / ``worker``) on an
embedded Redis (or ``REDIS_URL``); clients run in separate processes so they do not share its CPU. Prints
figures; never asserts on time. ``BENCH_GATEWAY_SOCKETS`` sets the WebSocket target (default 15,000).
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing as mp
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import websockets

from services.redis_launcher import EmbeddedRedis
from tests.bench.load_generator import _process_cpu_seconds
from tests.support.harness import free_port
from tests.support.pipeline import TEST_PLUGINS

THROUGHPUT_GAMES = 200
THROUGHPUT_SECONDS = 10.0
SPECTATORS = 1000
LATENCY_EVENTS = 20
UNLIMITED_ENV = {"HARBORMASTER_WS_PER_ADDRESS": "0", "HARBORMASTER_COMMANDS_PER_TOKEN": "0",
                 "HARBORMASTER_COMMANDS_PER_ADDRESS": "0", "HARBORMASTER_WS_FRAMES_PER_SECOND": "0",
                 "HARBORMASTER_WS_OPENS_PER_ADDRESS": "0", "HARBORMASTER_READS_PER_ADDRESS": "0"}  # fmt: skip
"""Every client of the bench comes from one address: the per-client limits (docs/limits.md) are off."""


def _spawn(args: list[str], url: str, extra_env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    """A ``harbormaster`` process of the benches on ``url``, knowing the test games, limits off."""
    env = {**os.environ, "REDIS_URL": url, "HARBORMASTER_GAME_PLUGINS": TEST_PLUGINS,
           "HARBORMASTER_LOG_LEVEL": "warning", **UNLIMITED_ENV, **(extra_env or {})}  # fmt: skip
    return subprocess.Popen([sys.executable, "-m", "services.cli", *args], env=env)


def _wait_ready(base: str) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if httpx.get(base + "/healthz").status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise RuntimeError("gateway did not start")


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


# --- commands per second over HTTP, 200 concurrent games -------------------------------------------------


class RawHttp:
    """A minimal keep-alive HTTP/1.1 client: the bench must not be slower than the gateway it measures."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def post(self, path: str, body: bytes, headers: dict[str, str]) -> tuple[int, bytes]:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        assert self.reader is not None
        head = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
        self.writer.write(
            f"POST {path} HTTP/1.1\r\nHost: {self.host}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n{head}\r\n".encode()
            + body
        )
        status_line = await self.reader.readline()
        length = 0
        while (line := await self.reader.readline()) not in (b"\r\n", b""):
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        return int(status_line.split()[1]), await self.reader.readexactly(length)

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


async def _player(port: int, game_id: str, token: str, until: float, latencies: list[float]) -> int:
    done = 0
    client = RawHttp("127.0.0.1", port)
    headers = {"Authorization": f"Bearer {token}"}
    body = b'{"command": {"type": "Note", "text": "x"}}'
    path = f"/api/games/{game_id}/commands?wait=true"
    while time.monotonic() < until:
        started = time.perf_counter()
        status, _ = await client.post(path, body, headers)
        if status == 200:
            done += 1
            latencies.append(time.perf_counter() - started)
    client.close()
    return done


async def _throughput(
    base: str, port: int, pids: dict[str, int]
) -> tuple[float, float, float, dict[str, float]]:
    """Commands/s, round trip p50 and p99 (ms), and each process's CPU per command (us)."""
    async with httpx.AsyncClient(base_url=base, timeout=60) as client:
        games = []
        for _ in range(THROUGHPUT_GAMES):
            body = (
                await client.post("/api/games", json={"game": "race", "seats": 1, "options": {"goal": 10**9}})
            ).json()
            games.append((body["game_id"], body["seats"][0]["token"]))
    latencies: list[float] = []
    until = time.monotonic() + 2  # warm the feeds
    await asyncio.gather(*(_player(port, g, t, until, []) for g, t in games))
    started = time.monotonic()
    cpu = {name: _process_cpu_seconds(pid) for name, pid in pids.items()}
    until = started + THROUGHPUT_SECONDS
    counts = await asyncio.gather(*(_player(port, g, t, until, latencies) for g, t in games))
    elapsed = time.monotonic() - started
    per_command = {
        name: 1e6 * (_process_cpu_seconds(pid) - cpu[name]) / max(1, sum(counts))
        for name, pid in pids.items()
    }
    latencies.sort()
    return (
        sum(counts) / elapsed,
        latencies[len(latencies) // 2] * 1000,
        latencies[int(len(latencies) * 0.99)] * 1000,
        per_command,
    )


# --- spectators in client processes ----------------------------------------------------------------------


async def _watch(url: str, count: int, ready: Any, results: Any, hold_s: float) -> None:
    sockets = []
    arrivals: dict[int, list[float]] = {}

    async def reader(socket: Any) -> None:
        async for message in socket:
            now = time.time()
            frame = json.loads(message)
            if frame.get("type") == "event":
                arrivals.setdefault(frame["seq"], []).append(now)

    for _ in range(count):
        try:
            sockets.append(await websockets.connect(url, max_size=None, open_timeout=30, ping_interval=None))
        except Exception:
            break
    ready.put(len(sockets))
    tasks = [asyncio.create_task(reader(s)) for s in sockets]
    await asyncio.sleep(hold_s)
    for task in tasks:
        task.cancel()
    results.put(arrivals)
    for socket in sockets:
        await socket.close()


def _watch_process(url: str, count: int, ready: Any, results: Any, hold_s: float) -> None:
    asyncio.run(_watch(url, count, ready, results, hold_s))


def _spectators(url: str, total: int, processes: int, hold_s: float) -> tuple[list[Any], Any, int]:
    ctx = mp.get_context("spawn")
    ready, results = ctx.Queue(), ctx.Queue()
    share = total // processes
    procs = [
        ctx.Process(target=_watch_process, args=(url, share, ready, results, hold_s))
        for _ in range(processes)
    ]
    for proc in procs:
        proc.start()
    opened = sum(ready.get(timeout=300) for _ in procs)
    return procs, results, opened


def _latency(base: str, ws_base: str) -> tuple[list[float], list[float]]:
    with httpx.Client(base_url=base, timeout=30) as api:
        body = api.post("/api/games", json={"game": "race", "seats": 1, "options": {"goal": 10**9}}).json()
        game_id, token = body["game_id"], body["seats"][0]["token"]
        procs, results, opened = _spectators(
            f"{ws_base}/ws/games/{game_id}", SPECTATORS, 4, LATENCY_EVENTS * 0.3 + 10
        )
        if opened < SPECTATORS:
            print(f"  only {opened} spectators connected")
        time.sleep(1)
        for i in range(LATENCY_EVENTS):
            api.post(f"/api/games/{game_id}/commands?wait=true", json={"command": {"type": "Note", "text": str(i)}},
                     headers={"Authorization": f"Bearer {token}"})  # fmt: skip
            time.sleep(0.3)
        appended = {
            e["seq"]: e["ts_ms"] / 1000 for e in api.get(f"/api/games/{game_id}/events").json()["events"]
        }
    arrivals: dict[int, list[float]] = {}
    for _ in procs:
        for seq, times in results.get(timeout=120).items():
            arrivals.setdefault(seq, []).extend(times)
    for proc in procs:
        proc.join(timeout=30)
    first, last = [], []
    for seq, times in arrivals.items():
        times.sort()
        first.append((times[0] - appended[seq]) * 1000)
        last.append((times[min(len(times), SPECTATORS) - 1] - appended[seq]) * 1000)
    return first, last


def _capacity(base: str, ws_base: str, gateway_pid: int, target: int) -> tuple[int, int, float]:
    with httpx.Client(base_url=base, timeout=30) as api:
        body = api.post("/api/games", json={"game": "race", "seats": 1}).json()
        processes = max(1, target // 5000)
        procs, results, opened = _spectators(f"{ws_base}/ws/games/{body['game_id']}", target, processes, 5)
        metrics = api.get("/metrics").text
        held = next(int(float(line.split()[-1])) for line in metrics.splitlines()
                    if line.startswith("harbormaster_open_websockets "))  # fmt: skip
        rss = _rss_mb(gateway_pid)
    for _ in procs:
        results.get(timeout=120)
    for proc in procs:
        proc.join(timeout=60)
    return opened, held, rss


def _frame_sizes() -> None:
    """Is a compact diff worth it? Full-view frames against frames carrying only the changed top-level fields."""
    import hashlib

    import msgspec

    from domain import GAMES
    from domain.engine import play_out
    from workers.jobs.bots import random_legal

    for key, game in sorted(GAMES.items()):
        seats = max(game.min_seats, 3)
        played = play_out(
            game, seats, {}, hashlib.sha256(key.encode()).digest(), [random_legal(game)] * seats
        )
        state, full, diff, started = None, 0, 0, time.perf_counter()
        previous: dict[str, Any] = {}
        for event in played.events:
            state = game.evolve(state, event)
            view = msgspec.to_builtins(game.view(state, None))
            event_bytes = len(msgspec.json.encode(game.redact(event, None)))
            changed = {k: v for k, v in view.items() if previous.get(k) != v}
            full += event_bytes + len(msgspec.json.encode(view))
            diff += event_bytes + len(msgspec.json.encode(changed))
            previous = view
        n = len(played.events)
        print(f"  {key}: {n} events; frame with full view {full / n:,.0f} B, with changed fields only "
              f"{diff / n:,.0f} B (projection {1e6 * (time.perf_counter() - started) / n:.0f} us/event)")  # fmt: skip


def main() -> None:
    """Run the measurements and print them."""
    print("spectator frame sizes (random games):")
    _frame_sizes()
    target = int(os.environ.get("BENCH_GATEWAY_SOCKETS", 15_000))
    server = None
    url = os.environ.get("REDIS_URL")
    if not url:
        server = EmbeddedRedis(Path(tempfile.mkdtemp(prefix="hm-bench-gw-")))
        url = server.start()
    port = free_port()
    base, ws_base = f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}"
    gateway = _spawn(["gateway", "--port", str(port)], url)
    worker = _spawn(["worker"], url)
    try:
        _wait_ready(base)
        rate, p50, p99, cpu = asyncio.run(
            _throughput(base, port, {"gateway": gateway.pid, "worker": worker.pid})
        )
        print(f"commands/s over HTTP, {THROUGHPUT_GAMES} concurrent games (?wait=true, 1 fold worker): "
              f"{rate:,.0f}  (round trip p50 {p50:.1f} ms, p99 {p99:.1f} ms; CPU per command: gateway "
              f"{cpu['gateway']:.0f} us, worker {cpu['worker']:.0f} us)")  # fmt: skip
        first, last = _latency(base, ws_base)
        print(f"appended event -> 1st spectator of {SPECTATORS}: median {statistics.median(first):.1f} ms, "
              f"max {max(first):.1f} ms")  # fmt: skip
        print(f"appended event -> {SPECTATORS}th spectator: median {statistics.median(last):.1f} ms, "
              f"max {max(last):.1f} ms  ({len(last)} events)")  # fmt: skip
        opened, held, rss = _capacity(base, ws_base, gateway.pid, target)
        print(f"open WebSockets one gateway process held: {held:,} (clients opened {opened:,} of {target:,}; "
              f"gateway RSS {rss:.0f} MB; fd limit {os.sysconf('SC_OPEN_MAX')})")  # fmt: skip
    finally:
        for proc in (gateway, worker):
            proc.terminate()
            proc.wait(timeout=20)
        if server is not None:
            server.stop()


if __name__ == "__main__":
    main()
