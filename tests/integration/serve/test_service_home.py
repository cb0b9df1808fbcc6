"""The service's home holds its data (issue 43, finding 2): a verb run from another folder talks to the
running serve and works in serve's data folder: its archives land in serve's archive folder (none in the
folder the verb ran from), and the log's key it prints is serve's, not a new one made where it ran."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import httpx

from services.redis_launcher import free_port
from tests.integration.serve.test_adopted_redis import _eventually, _healthy
from tests.support.pipeline import TEST_PLUGINS, stop_serve


def test_verbs_run_elsewhere_work_in_the_serves_home(tmp_path) -> None:
    home, elsewhere = tmp_path / "home", tmp_path / "elsewhere"
    home.mkdir()
    elsewhere.mkdir()
    port = free_port()
    base = {
        k: v
        for k, v in os.environ.items()
        if k not in ("REDIS_URL", "HARBORMASTER_DATA", "HARBORMASTER_ARCHIVE")
    }
    repo = str(Path(__file__).resolve().parents[3])  # the test plugins' package, from any folder
    base |= {
        "HARBORMASTER_GAME_PLUGINS": TEST_PLUGINS,
        "HARBORMASTER_LOG_LEVEL": "warning",
        "PYTHONPATH": repo,
    }
    serve = subprocess.Popen([sys.executable, "-m", "services.cli", "serve", "--port", str(port)], env=base,
                             cwd=home, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             start_new_session=True)  # fmt: skip

    def verb(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "services.cli", *args], env=base, cwd=elsewhere,
                              capture_output=True, text=True, timeout=120)  # fmt: skip

    try:
        _eventually(lambda: _healthy(port), 60, "serve up")
        made = verb("new", "race", "--seats", "1", "--options", '{"goal": 6}')
        assert made.returncode == 0, made.stderr
        game_id = json.loads(made.stdout.splitlines()[0])["game_id"]
        for _ in range(6):
            sent = verb("send", game_id, "0", '{"type": "Roll"}')
            assert sent.returncode in (0, 1), sent.stdout + sent.stderr
        _eventually(lambda: httpx.get(f"http://127.0.0.1:{port}/api/games/{game_id}", timeout=5).json()
                    .get("status") == "finished", 60, "the race ends")  # fmt: skip
        archived = verb("archive", game_id)
        assert archived.returncode == 0, archived.stderr
        entry = json.loads(archived.stdout.splitlines()[0])
        assert entry["file"].startswith(str(home / ".harbormaster" / "archive"))
        assert not (elsewhere / ".harbormaster").exists()
        served_key = httpx.get(f"http://127.0.0.1:{port}/api/log/key", timeout=5).json()["vkey"]
        printed = verb("log-key")
        assert printed.returncode == 0 and served_key in printed.stdout, printed.stdout + printed.stderr
        assert not (elsewhere / ".harbormaster").exists()
    finally:
        stop_serve(serve, home / ".harbormaster")
