"""``harbormaster serve`` on the local cluster for a test (2 fold workers, 2 rq workers), once its gateway
answers; stopped with SIGTERM afterwards if the test has not (SIGKILL to its session after 90 s). ``stop``: the
SIGTERM, and the log's end in the failure if it does not stop."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import NamedTuple

import httpx

from services.redis_launcher import free_port
from tests.support.pipeline import eventually


class Serving(NamedTuple):
    process: subprocess.Popen[bytes]
    archive: Path
    port: int
    log: Path


STOP_TIMEOUT_S = 90.0
"""How long ``serve`` gets to stop after its SIGTERM (its whole stop took 1.0-1.5 s at a load of 15-25)."""


def stop(serving: Serving) -> int:
    """SIGTERM to ``serve``; its exit code once it has stopped, or its log's end if it has not in time."""
    serving.process.send_signal(signal.SIGTERM)
    try:
        return serving.process.wait(timeout=STOP_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        tail = serving.log.read_text(errors="replace")[-3000:]
        raise AssertionError(
            f"serve did not stop within {STOP_TIMEOUT_S:.0f} s of its SIGTERM:\n{tail}"
        ) from None


@contextmanager
def serve_on_cluster(cluster_url: str, folder: Path, env: dict[str, str] | None = None) -> Iterator[Serving]:
    """``serve`` with ``REDIS_URL`` the cluster's, its data, archive (``folder/archive``) and log
    (``folder/serve.log``) under ``folder``; ``env``: more of its settings."""
    archive, port = folder / "archive", free_port()
    env = {**os.environ, "REDIS_URL": cluster_url, "HARBORMASTER_DATA": str(folder / "data"),
           "HARBORMASTER_ARCHIVE": str(archive), "HARBORMASTER_LOG_LEVEL": "warning", **(env or {})}  # fmt: skip
    log_path = folder / "serve.log"
    log = log_path.open("wb")
    serve = subprocess.Popen(
        [sys.executable, "-m", "services.cli", "serve", "--port", str(port), "--workers", "2", "--rq-workers", "2"],
        env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip
    try:
        eventually(lambda: serve.poll() is not None or _healthy(port), timeout=120, message="serve's gateway")
        assert serve.poll() is None, log_path.read_text()[-2000:]
        yield Serving(serve, archive, port, log_path)
    finally:
        if serve.poll() is None:
            serve.send_signal(signal.SIGTERM)
            try:
                serve.wait(timeout=STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                os.killpg(serve.pid, signal.SIGKILL)
                serve.wait()
        log.close()


def _healthy(port: int) -> bool:
    try:
        return httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=5).status_code == 200
    except httpx.HTTPError:
        return False
