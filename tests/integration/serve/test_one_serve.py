"""One service, one home (issue 43, finding 1): with a ``serve`` running, a second one (another port, or
another data folder) is refused in one line before it starts anything: the first keeps answering, its
Redis gets no demo games of the second, and ``serve.json`` still names it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import httpx
import redis

from services.discovery import state_file
from services.redis_launcher import free_port, running_url
from tests.integration.serve.test_serve import _start_serve
from tests.support.pipeline import stop_serve


def _second(data: Path, port: int, cwd: Path, **extra: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HARBORMASTER_DATA": str(data), **extra}
    env.pop("REDIS_URL", None)
    return subprocess.run([sys.executable, "-m", "services.cli", "serve", "--demo", "--port", str(port)],
                          env=env, cwd=cwd, capture_output=True, text=True, timeout=60)  # fmt: skip


def test_a_second_serve_is_refused_and_the_first_goes_on(tmp_path) -> None:
    first_data = tmp_path / "first"
    first_data.mkdir()
    port = free_port()
    first = _start_serve(first_data, port)
    try:
        url = running_url(first_data)
        assert url is not None
        games_before = set(redis.Redis.from_url(url).zrange("hm:games", 0, -1))
        state_before = state_file().read_bytes()
        for data, second_port in ((tmp_path / "second", free_port()), (first_data, free_port())):
            data.mkdir(exist_ok=True)
            done = _second(data, second_port, tmp_path)
            assert done.returncode == 2, done.stderr
            assert f"Harbormaster already runs (pid {first.pid}" in done.stderr
            assert "Traceback" not in done.stderr and "is up" not in done.stdout
            assert running_url(tmp_path / "second") is None  # no Redis started for it
        # Another user's state file (or none): the data folder itself is held.
        other_user = _second(first_data, free_port(), tmp_path, XDG_STATE_HOME=str(tmp_path / "elsewhere"))
        assert other_user.returncode == 2
        assert f"another serve runs on the data in {first_data} (pid {first.pid})" in other_user.stderr
        assert httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=5).status_code == 200
        assert state_file().read_bytes() == state_before
        assert json.loads(state_before)["pid"] == first.pid
        assert set(redis.Redis.from_url(url).zrange("hm:games", 0, -1)) == games_before
    finally:
        stop_serve(first, first_data)


def test_a_serve_on_a_taken_address_is_refused_in_one_line(tmp_path) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = _second(tmp_path, port, tmp_path)
    assert done.returncode == 2 and f"127.0.0.1:{port} is in use" in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert running_url(tmp_path) is None
