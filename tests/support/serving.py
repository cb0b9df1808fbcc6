"""A real ``harbormaster serve`` for a test: started in a session of its own on a free port over a data
folder, waited for until its gateway answers, and stopped (with its embedded Redis) afterwards."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from services.redis_launcher import free_port, running_url
from tests.support.pipeline import stop_serve


@contextmanager
def running_serve(data: Path) -> Iterator[tuple[str, str]]:
    """``serve`` over ``data``: its gateway's base URL and its Redis's URL. A serve that dies or does not
    answer within 90 s fails with the end of its log."""
    port = free_port()
    env = {**os.environ, "HARBORMASTER_DATA": str(data), "HARBORMASTER_LOG_LEVEL": "info"}
    env.pop("REDIS_URL", None)
    log = data / "serve.log"
    with open(log, "wb") as out:  # a file, not a pipe nobody reads: serve must never block on its log
        process = subprocess.Popen(
            [sys.executable, "-m", "services.cli", "serve", "--port", str(port)],
            env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 90
    while not _up(base):
        if process.poll() is not None or time.monotonic() > deadline:
            os.killpg(process.pid, signal.SIGKILL)
            raise AssertionError(f"serve never got going:\n{log.read_text(errors='replace')[-3000:]}")
        time.sleep(0.3)
    url = running_url(data)
    assert url is not None
    try:
        yield base, url
    finally:
        stop_serve(process, data)


def _up(base: str) -> bool:
    try:
        return httpx.get(f"{base}/healthz", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False
