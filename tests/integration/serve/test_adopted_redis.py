"""The data folder's Redis is always supervised (issue 43, finding 4; issue 42, finding 3): after ``kill -9``
of ``serve`` the next one adopts the Redis it left and restarts it when it dies; a command that started the
folder's Redis before a ``serve`` adopted it leaves it running at its end; Ctrl-C stops the adopted one."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import httpx
import redis

from services.cli_common import _embedded
from services.redis_launcher import free_port, running_url
from tests.integration.serve.test_serve import _start_serve
from tests.support.pipeline import stop_serve


def _pid_of(url: str) -> int:
    return int(redis.Redis.from_url(url).info("server")["process_id"])


def _healthy(port: int) -> bool:
    try:
        return httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


def _eventually(check, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, what
        time.sleep(0.3)


def _start_plain(data, port: int) -> subprocess.Popen[bytes]:
    """A serve without demo games, up once its gateway answers."""
    env = {**os.environ, "HARBORMASTER_DATA": str(data)}
    env.pop("REDIS_URL", None)
    serve = subprocess.Popen([sys.executable, "-m", "services.cli", "serve", "--port", str(port)], env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)  # fmt: skip
    _eventually(lambda: _healthy(port) or serve.poll() is not None, 60, "serve up")
    assert serve.poll() is None
    return serve


def test_serve_adopts_the_redis_a_killed_serve_left_and_restarts_it_when_it_dies(tmp_path) -> None:
    port = free_port()
    first = _start_serve(tmp_path, port)
    first.kill()  # kill -9: no chance to stop its Redis
    first.wait(timeout=10)
    left = running_url(tmp_path)
    assert left is not None
    second = _start_plain(tmp_path, port)
    try:
        assert running_url(tmp_path) == left  # the same Redis, taken over
        os.kill(_pid_of(left), signal.SIGKILL)  # whoever stops it
        _eventually(lambda: running_url(tmp_path) is not None and _healthy(port), 60, "Redis restarted")
        restarted = running_url(tmp_path)
        assert restarted is not None and _pid_of(restarted) != 0
        started = time.monotonic()
        os.killpg(second.pid, signal.SIGINT)  # Ctrl-C
        second.wait(timeout=40)
        # Usually 4-7 s; an rq worker caught in rq's own reconnect loop after the restart takes no SIGTERM
        # until it is through it, and the supervisor gives each child 15 s before it kills it.
        assert time.monotonic() - started < 25
        assert running_url(tmp_path) is None  # the adopted Redis stopped with it
    finally:
        if second.poll() is None:
            stop_serve(second, tmp_path)


def test_a_command_that_started_the_folders_redis_leaves_it_to_the_serve_that_adopted_it(tmp_path) -> None:
    port = free_port()
    with _embedded(tmp_path) as url:  # `tournament run` with no serve: its own Redis on the folder
        serve = _start_serve(tmp_path, port)
        assert running_url(tmp_path) == url
    try:  # the run ended: serve's Redis is still there
        assert running_url(tmp_path) == url and _healthy(port)
    finally:
        stop_serve(serve, tmp_path)
