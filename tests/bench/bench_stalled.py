"""Gateway memory with 1,000 stalled spectators (issue 17): sockets that finish the WebSocket handshake and
then never read a byte, on a game whose events keep coming.

What bounds them: each viewer's queue holds at most ``viewer.QUEUE_LIMIT`` frames (shared strings, one
copy per kind of viewer) and is swapped for a fresh view when full; uvicorn's write buffer pauses the
sender at its high-water mark; a send blocked longer than ``HARBORMASTER_WS_STALL_SECONDS`` drops the
socket (that needs the kernel's socket buffers full too: megabytes on loopback), and uvicorn's keep-alive
ping (20 s, then 20 s for the pong) closes a client that never answers. Prints the gateway's RSS at each
stage and how many stalled sockets it still holds; never asserts on time.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import httpx

from services.redis_launcher import EmbeddedRedis
from tests.bench import bench_gateway
from tests.bench.bench_gateway import _rss_mb, _wait_ready
from tests.support.harness import free_port

STALLED = 1000
EVENTS = 1500
"""Notes of 100 characters on a dice race: ~300-byte frames, far more than a stalled socket's queue holds."""
STALL_SECONDS = 10


def _frame_bytes(api: httpx.Client, game_id: str) -> int:
    """What a spectator's event frames add up to (each carries the event and the view after it)."""
    page = api.get(f"/api/games/{game_id}/events", params={"limit": 5000}).json()
    view = len(api.get(f"/api/games/{game_id}").content)
    return sum(len(json.dumps(e["event"])) + view for e in page["events"])


def _spawn(args: list[str], url: str) -> subprocess.Popen[bytes]:
    return bench_gateway._spawn(args, url, {"HARBORMASTER_WS_STALL_SECONDS": str(STALL_SECONDS)})


def _stalled_socket(port: int, game_id: str) -> socket.socket:
    """A spectator that completes the handshake (the request; the answer is never read) and never reads."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # before connect: a small window
    sock.connect(("127.0.0.1", port))
    sock.sendall(
        f"GET /ws/games/{game_id} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
        "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        .encode()
    )  # fmt: skip
    return sock


def _gauge(base: str, name: str) -> float:
    for line in httpx.get(base + "/metrics", timeout=30).text.splitlines():
        if line.startswith(name + " ") or line.startswith(name + "{"):
            return float(line.rsplit(" ", 1)[1])
    return 0.0


def main() -> None:
    server = None
    url = os.environ.get("REDIS_URL")
    if not url:
        server = EmbeddedRedis(Path(tempfile.mkdtemp(prefix="hm-bench-stall-")))
        url = server.start()
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    gateway, worker = _spawn(["gateway", "--port", str(port)], url), _spawn(["worker"], url)
    sockets: list[socket.socket] = []
    try:
        _wait_ready(base)
        with httpx.Client(base_url=base, timeout=30) as api:
            game = api.post(
                "/api/games", json={"game": "race", "seats": 2, "options": {"goal": 10**9}}
            ).json()
            game_id, token = game["game_id"], game["seats"][0]["token"]
            headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
            rss0 = _rss_mb(gateway.pid)
            sockets = [_stalled_socket(port, game_id) for _ in range(STALLED)]
            time.sleep(2)
            held, rss1 = _gauge(base, "harbormaster_open_websockets"), _rss_mb(gateway.pid)
            peak = rss1
            for i in range(EVENTS):
                note = json.dumps({"command": {"type": "Note", "text": f"{i:05d}".ljust(100, "x")}})
                api.post(f"/api/games/{game_id}/commands?wait=true", content=note, headers=headers)
                if i % 50 == 0:
                    peak = max(peak, _rss_mb(gateway.pid))
            events = api.get(f"/api/games/{game_id}").json()["seq"]
            rss2 = _rss_mb(gateway.pid)
            peak = max(peak, rss2)
            resyncs = _gauge(base, "harbormaster_ws_resyncs_total")
            frames = _frame_bytes(api, game_id)
            time.sleep(STALL_SECONDS + 5)
            left, dropped = (
                _gauge(base, "harbormaster_open_websockets"),
                _gauge(base, "harbormaster_ws_stalled_total"),
            )
            rss3 = _rss_mb(gateway.pid)
            waited = STALL_SECONDS + 5
            while left > 0 and waited < 90:
                time.sleep(2)
                waited += 2
                left = _gauge(base, "harbormaster_open_websockets")
            rss4 = _rss_mb(gateway.pid)
        print(
            f"gateway RSS, idle: {rss0:.0f} MB; with {held:.0f} stalled spectators of one game: {rss1:.0f} MB"
        )
        print(f"after its {events} events ({frames / 2**20:.1f} MB of frames a spectator would get): "
              f"{rss2:.0f} MB (peak {peak:.0f} MB: {(peak - rss0) * 1024 / STALLED:.0f} KB a stalled spectator; "
              f"{resyncs:.0f} fresh views sent instead of queued frames)")  # fmt: skip
        print(f"{STALL_SECONDS + 5} s later (stall limit {STALL_SECONDS} s): {dropped:.0f} stalled sockets dropped, "
              f"RSS {rss3:.0f} MB")  # fmt: skip
        print(f"{waited} s after the last event: {left:.0f} stalled sockets still open, RSS {rss4:.0f} MB")
    finally:
        for sock in sockets:
            sock.close()
        for proc in (gateway, worker):
            proc.terminate()
            proc.wait(timeout=20)
        if server is not None:
            server.stop()


if __name__ == "__main__":
    main()
