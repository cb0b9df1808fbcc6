"""A part started by hand (``gateway``, ``worker``, ``rq-worker``) without ``REDIS_URL`` uses the running
``serve``'s Redis; before, it started an empty Redis wherever it ran, even beside a running ``serve`` (issue
43, finding 7). With no serve at all it starts one on its data folder, as the journey suite checks."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import httpx

from services.redis_launcher import free_port, running_url
from tests.integration.serve.test_adopted_redis import _eventually, _healthy, _start_plain
from tests.support.pipeline import stop_serve


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "HARBORMASTER_DATA")}
    return env


def test_a_gateway_started_elsewhere_serves_the_running_services_games(tmp_path) -> None:
    home, elsewhere = tmp_path / "home", tmp_path / "elsewhere"
    home.mkdir()
    elsewhere.mkdir()
    port, other = free_port(), free_port()
    serve = _start_plain(home, port)
    gateway = None
    try:
        made = httpx.post(
            f"http://127.0.0.1:{port}/api/games", json={"game": "manila", "seats": 3}, timeout=10
        )
        assert made.status_code in (200, 201), made.text
        gateway = subprocess.Popen([sys.executable, "-m", "services.cli", "gateway", "--port", str(other)],
                                   env=_env(), cwd=elsewhere, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL, start_new_session=True)  # fmt: skip
        _eventually(lambda: _healthy(other), 60, "the second gateway answers")
        ids = [
            g["game_id"] for g in httpx.get(f"http://127.0.0.1:{other}/api/games", timeout=10).json()["games"]
        ]
        assert made.json()["game_id"] in ids
        assert running_url(elsewhere / ".harbormaster") is None and not (elsewhere / ".harbormaster").exists()
    finally:
        if gateway is not None:
            os.killpg(gateway.pid, signal.SIGTERM)
            gateway.wait(timeout=30)
        stop_serve(serve, home)
