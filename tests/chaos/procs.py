"""``harbormaster serve`` as the chaos run drives it, and its processes found by role in ``/proc``."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

import httpx

ROLES = {
    "fold": "services.cli worker",
    "rq": "services.cli rq-worker",
    "gateway": "services.cli gateway",
    "redis": "redis-server",
}
"""How each supervised process shows in its command line."""


def children_of(pid: int) -> dict[int, str]:
    """The live (not zombie) processes whose parent is ``pid``, with their command lines."""
    found = {}
    for child in _child_pids(pid):
        try:
            with open(f"/proc/{child}/stat") as stat, open(f"/proc/{child}/cmdline", "rb") as cmd:
                fields = stat.read().rsplit(")", 1)[1].split()
                if int(fields[1]) == pid and fields[0] != "Z":
                    found[child] = cmd.read().replace(b"\0", b" ").decode()
        except (OSError, ValueError, IndexError):
            continue
    return found


def _child_pids(pid: int) -> list[int]:
    """The kernel's list of a process's children (cheap: the fault injector polls it for work-horses that
    live milliseconds), else every process (the stat check above keeps the children)."""
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as children:
            return [int(p) for p in children.read().split()]
    except OSError:
        return [int(entry) for entry in os.listdir("/proc") if entry.isdigit()]


class Serve:
    """A ``harbormaster serve`` on a data folder of its own, its output in ``serve.log`` there."""

    def __init__(
        self,
        folder: Path,
        port: int,
        workers: int = 2,
        rq_workers: int = 2,
        env: dict[str, str] | None = None,
    ) -> None:
        self.folder = folder
        self.port = port
        self.base = f"http://127.0.0.1:{port}"
        env = {
            **os.environ,
            "HARBORMASTER_DATA": str(folder / "data"),
            "HARBORMASTER_LOG_LEVEL": "info",
            # Every chaos client comes from one address: the per-client limits are not what is tested.
            "HARBORMASTER_WS_PER_ADDRESS": "0",
            "HARBORMASTER_COMMANDS_PER_TOKEN": "0",
            "HARBORMASTER_COMMANDS_PER_ADDRESS": "0",
            "HARBORMASTER_WS_FRAMES_PER_SECOND": "0",
            "HARBORMASTER_WS_OPENS_PER_ADDRESS": "0",
            "HARBORMASTER_READS_PER_ADDRESS": "0",
            **(env or {}),
        }
        env.pop("REDIS_URL", None)
        folder.mkdir(parents=True, exist_ok=True)
        self.log_path = folder / "serve.log"
        self._log = self.log_path.open("wb")
        args = ["serve", "--port", str(port), "--workers", str(workers), "--rq-workers", str(rq_workers)]
        self.process = subprocess.Popen(
            [sys.executable, "-m", "services.cli", *args],
            env=env,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    @property
    def redis_url(self) -> str:
        return (self.folder / "data" / "redis.url").read_text().strip()

    def wait_healthy(self, timeout: float = 60.0) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                return False
            try:
                if httpx.get(f"{self.base}/healthz", timeout=2).status_code == 200:
                    return True
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        return False

    def pids(self, role: str) -> list[int]:
        """The live processes of a role; ``horse`` is an rq work-horse (a child of the rq worker)."""
        if role == "horse":
            return [pid for rq in self.pids("rq") for pid in children_of(rq)]
        return [pid for pid, cmd in children_of(self.process.pid).items() if ROLES[role] in cmd]

    def stop(self) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
        self._log.close()
        return self.process.returncode


class RunResult(Protocol):
    """What a chaos run's result keeps of its serve and working folder."""

    client_errors: list[str]
    serve_exit: int | None
    elapsed_s: float

    @property
    def ok(self) -> bool: ...


def play_on_serve(serve: Serve, result: RunResult, play: Callable[[], None], started: float) -> None:
    """``play`` once serve's gateway answers; then serve stopped, its exit code and the time since
    ``started`` kept in ``result`` (whatever ``play`` raised)."""
    try:
        if not serve.wait_healthy(90):
            raise RuntimeError(f"serve did not start; see {serve.log_path}")
        play()
    finally:
        result.serve_exit = serve.stop()
        result.elapsed_s = time.monotonic() - started


def tidy(folder: Path, own: bool, result: RunResult) -> None:
    """The working folder removed if the run made it and every check passed; kept (and named) if one failed."""
    if own and result.ok:
        shutil.rmtree(folder, ignore_errors=True)
    elif not result.ok:
        result.client_errors.append(f"(working folder kept: {folder})")
