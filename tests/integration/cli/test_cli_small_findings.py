"""Issue 43's smaller findings, as a user meets them: ``new`` refuses a bot on a seat the table lacks (HTTP
did already), ``games`` says when it shows only the newest, ``serve`` prints the address the README gives and
a second start on the same data keeps its demo games instead of adding three more."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import httpx

from services.redis_launcher import free_port
from tests.integration.serve.test_adopted_redis import _eventually


def _cli(redis_url: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "REDIS_URL": redis_url, "HARBORMASTER_LOG_LEVEL": "warning"}
    return subprocess.run([sys.executable, "-m", "services.cli", *args], env=env, capture_output=True, text=True,
                          timeout=60)  # fmt: skip


def test_new_refuses_a_bot_on_a_seat_the_table_lacks(redis_url, redis_client) -> None:
    done = _cli(redis_url, "new", "manila", "--seats", "3", "--bots", '{"7": "greedy"}')
    assert done.returncode == 2 and "seat 7: the table has seats 0 to 2" in done.stderr
    assert redis_client.zcard("hm:games") == 0


def test_games_says_when_it_lists_only_the_newest(redis_url, redis_client) -> None:
    for _ in range(3):
        assert _cli(redis_url, "new", "manila", "--seats", "3").returncode == 0
    shown = _cli(redis_url, "games", "--limit", "2")
    assert len(shown.stdout.splitlines()) == 2 and "the newest 2 of 3 games" in shown.stderr
    everything = _cli(redis_url, "games", "--limit", "0")
    assert len(everything.stdout.splitlines()) == 3 and everything.stderr == ""


def _demo_ids(port: int) -> set[str] | None:
    try:
        games = httpx.get(f"http://127.0.0.1:{port}/api/games", timeout=2).json()["games"]
    except (httpx.HTTPError, ValueError, KeyError):
        return None
    return {g["game_id"] for g in games if g["game_id"].startswith("demo-")}


def test_serve_prints_the_readmes_address_and_keeps_its_demo_games_when_started_again(tmp_path) -> None:
    env = {**os.environ, "HARBORMASTER_DATA": str(tmp_path)}
    env.pop("REDIS_URL", None)
    port = free_port()
    seen: list[set[str]] = []
    for _ in range(2):
        serve = subprocess.Popen([sys.executable, "-m", "services.cli", "serve", "--demo", "--port", str(port)],
                                 env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                 start_new_session=True)  # fmt: skip
        try:
            _eventually(lambda: (ids := _demo_ids(port)) is not None and len(ids) >= 3, 60, "demo games")
            seen.append(_demo_ids(port) or set())
        finally:
            os.killpg(serve.pid, signal.SIGINT)
            out, _ = serve.communicate(timeout=60)
        assert f"open http://127.0.0.1:{port}/ in a browser" in out.decode()
    assert len(seen[0]) == 3 and seen[1] == seen[0]
