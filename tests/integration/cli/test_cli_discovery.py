"""The CLI finds the running ``serve`` from any folder (issue 17, finding 12), with a real ``serve``.

``serve`` leaves its Redis address in the user's state file and removes it at a clean exit; a verb run
elsewhere uses it, and with no server at all it refuses in one line instead of starting an empty Redis.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from services.config import Settings
from services.discovery import Found, NoServer, announce, find_redis, read_state, withdraw
from services.redis_launcher import free_port
from tests.support.pipeline import RACE_PLUGIN


def _env(state: Path) -> dict[str, str]:
    env = {**os.environ, "XDG_STATE_HOME": str(state), "HARBORMASTER_GAME_PLUGINS": RACE_PLUGIN}
    env["HARBORMASTER_LOG_LEVEL"] = "warning"
    for name in ("REDIS_URL", "HARBORMASTER_DATA"):
        env.pop(name, None)
    return env


def _hm(cwd: Path, state: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "services.cli", *args],
        cwd=cwd,
        env={**_env(state), "PYTHONPATH": str(Path(__file__).resolve().parents[3])},
        capture_output=True,
        timeout=60,
    )


def _start_serve(cwd: Path, state: Path, port: int) -> subprocess.Popen[bytes]:
    serve = subprocess.Popen(
        [sys.executable, "-m", "services.cli", "serve", "--port", str(port)],
        cwd=cwd,
        env={**_env(state), "PYTHONPATH": str(Path(__file__).resolve().parents[3])},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while True:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2).status_code == 200:
                return serve
        except httpx.HTTPError:
            pass
        if serve.poll() is not None or time.monotonic() > deadline:
            os.killpg(serve.pid, signal.SIGKILL)
            raise AssertionError("serve did not start")
        time.sleep(0.3)


def test_a_verb_run_in_another_folder_uses_the_running_serve(tmp_path: Path) -> None:
    project, elsewhere, state = tmp_path / "project", tmp_path / "elsewhere", tmp_path / "state"
    project.mkdir()
    elsewhere.mkdir()
    port = free_port()
    serve = _start_serve(project, state, port)
    try:
        state_file = state / "harbormaster" / "serve.json"
        assert json.loads(state_file.read_text())["pid"] == serve.pid
        assert state_file.stat().st_mode & 0o077 == 0  # the user's alone
        created = _hm(elsewhere, state, "new", "race", "--seats", "2")
        assert created.returncode == 0, created.stderr
        game_id = json.loads(created.stdout)["game_id"]
        served = httpx.get(f"http://127.0.0.1:{port}/api/games", timeout=10).json()["games"]
        assert game_id in [g["game_id"] for g in served]  # made in serve's Redis, not a new one here
        listed = _hm(elsewhere, state, "games")
        assert listed.returncode == 0 and game_id in listed.stdout.decode()
        assert not (elsewhere / ".harbormaster").exists()
    finally:
        os.killpg(serve.pid, signal.SIGINT)  # Ctrl-C: a clean stop
        serve.wait(timeout=60)
    assert not (state / "harbormaster" / "serve.json").exists()  # removed at the clean exit
    gone = _hm(elsewhere, state, "log", game_id)
    assert gone.returncode == 2
    assert gone.stderr.startswith(b"harbormaster: no running Harbormaster found")
    assert b"serve.json" in gone.stderr and b"start `harbormaster serve`" in gone.stderr
    assert not (elsewhere / ".harbormaster").exists()  # no empty Redis started there
    # In the project's folder, the data serve left is used (and the user told so).
    found = _hm(project, state, "games")
    assert found.returncode == 0 and game_id in found.stdout.decode()
    assert b"no running server found; using a new embedded Redis on the data in" in found.stderr


def _settings(data: Path, redis_url: str | None = None, named: bool = False) -> Settings:
    return Settings(redis_url=redis_url, data_dir=data, data_dir_named=named)


def test_the_order_in_which_a_verb_looks_for_its_redis(
    redis_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    empty = tmp_path / "empty"
    with pytest.raises(NoServer, match="no running Harbormaster found"):
        find_redis(_settings(empty))
    assert find_redis(_settings(empty, "redis://elsewhere:6379/0")).url == "redis://elsewhere:6379/0"
    state = announce(redis_url)
    found = find_redis(_settings(empty))
    assert found.url == redis_url and f"pid {os.getpid()}" in found.how
    # HARBORMASTER_DATA named by the user: its own Redis, not serve's
    assert find_redis(_settings(empty, named=True)) == Found(url=None, how=f"a new embedded Redis on the data in {empty}",
                                                 start_in=empty)  # fmt: skip
    withdraw(state)
    assert read_state() is None
    announce("redis://127.0.0.1:1/0")  # a serve killed with its Redis: the file is stale, and ignored
    with pytest.raises(NoServer):
        find_redis(_settings(empty))
