"""Memory per open WebSocket (issue 19): tracemalloc's view of what one spectator's socket holds.

A gateway under tracemalloc (``traced_gateway.py``) on an embedded Redis; ``BENCH_SOCKET_MEMORY_SOCKETS``
(default 1,000) spectators of one counter game connect from a Node.js process; snapshots before and after
give the Python objects per socket, by the file that allocated them, the objects per socket that the
cyclic garbage collector tracks (each full collection walks them all: its pause grows with the sockets
held), and RSS growth per socket. That RSS includes tracemalloc's own record of every allocation: the
gateway's RSS per socket without it is the fan-out part of ``bench_moves``.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

from services.redis_launcher import EmbeddedRedis
from tests.bench.bench_gateway import UNLIMITED_ENV, _rss_mb, _wait_ready
from tests.bench.bench_moves import HERE, _games
from tests.support.harness import free_port
from tests.support.pipeline import TEST_PLUGINS

TOP = 12


def _snapshot(pid: int, folder: Path, index: int) -> tracemalloc.Snapshot:
    os.kill(pid, signal.SIGUSR1)
    deadline = time.monotonic() + 120
    while not (folder / f"{index}.done").exists():
        if time.monotonic() > deadline:
            raise RuntimeError("the traced gateway wrote no snapshot")
        time.sleep(0.2)
    return tracemalloc.Snapshot.load(str(folder / f"{index}.snap"))


def main() -> None:
    sockets = int(os.environ.get("BENCH_SOCKET_MEMORY_SOCKETS", 1000))
    folder = Path(tempfile.mkdtemp(prefix="hm-bench-socket-memory-"))
    server = EmbeddedRedis(folder / "redis")
    url = server.start()
    port = free_port()
    base, ws_base = f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}"
    env = {**os.environ, "REDIS_URL": url, "HARBORMASTER_GAME_PLUGINS": TEST_PLUGINS, "HM_TRACE_DIR": str(folder),
           "HARBORMASTER_LOG_LEVEL": "warning", **UNLIMITED_ENV}  # fmt: skip
    gateway = subprocess.Popen(
        [sys.executable, "-m", "tests.bench.traced_gateway", str(port)], env=env, text=True
    )
    watch: subprocess.Popen[str] | None = None
    try:
        _wait_ready(base)
        game = _games(base, 1)[0]
        npm = subprocess.run([HERE / "ws_moves" / "install.sh"], capture_output=True, text=True, check=True)
        script = Path(npm.stdout.strip()) / "watch.js"
        # one socket first, so that what every socket shares (the feed, imports) is in the first snapshot
        warm = subprocess.Popen(["node", str(script), f"{ws_base}/ws/games/{game['game_id']}", "1"],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)  # fmt: skip
        assert warm.stdout is not None
        json.loads(warm.stdout.readline())
        time.sleep(1)
        before, rss_before = _snapshot(gateway.pid, folder, 0), _rss_mb(gateway.pid)
        watch = subprocess.Popen(["node", str(script), f"{ws_base}/ws/games/{game['game_id']}", str(sockets)],
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)  # fmt: skip
        assert watch.stdout is not None
        connected = json.loads(watch.stdout.readline())["ready"]
        time.sleep(2)
        rss_after = _rss_mb(gateway.pid)
        after = _snapshot(gateway.pid, folder, 1)
        by_file = after.compare_to(before, "filename")
        total = sum(d.size_diff for d in by_file)
        tracked = int((folder / "1.objects").read_text()) - int((folder / "0.objects").read_text())
        print(f"{connected:,} spectators connected: {total / connected / 1024:.1f} kB of Python objects per "
              f"socket (tracemalloc), {tracked / connected:.0f} objects tracked by the collector per socket, "
              f"RSS {1024 * (rss_after - rss_before) / connected:.1f} kB per socket (with tracemalloc's own)")  # fmt: skip
        for diff in by_file[:TOP]:
            frame = diff.traceback[0]
            print(f"  {diff.size_diff / connected:>7.0f} B  {diff.count_diff / connected:>5.1f} blocks  "
                  f"{frame.filename.split('site-packages/')[-1]}")  # fmt: skip
        for diff in after.compare_to(before, "lineno")[:TOP]:
            frame = diff.traceback[0]
            print(
                f"  {diff.size_diff / connected:>7.0f} B  {frame.filename.split('site-packages/')[-1]}:{frame.lineno}"
            )
        for client in (watch, warm):
            assert client.stdin is not None
            client.stdin.write("report\n")
            client.stdin.flush()
            client.wait(timeout=30)
    finally:
        for proc in (watch, gateway):
            if proc is not None and proc.poll() is None:
                proc.terminate()
                proc.wait(timeout=20)
        server.stop()


if __name__ == "__main__":
    main()
