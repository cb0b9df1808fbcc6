"""``harbormaster serve`` as a user runs it: started, watched, stopped with Ctrl-C."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import httpx
import pytest
import redis

from services.redis_launcher import free_port, running_url


def _demo_seqs(port: int) -> dict[str, int] | None:
    """Each demo game's sequence number, once the gateway answers with all three."""
    try:
        games = httpx.get(f"http://127.0.0.1:{port}/api/games", timeout=2).json()["games"]
    except (httpx.HTTPError, ValueError, KeyError):
        return None
    return {game["game_id"]: game["seq"] for game in games} if len(games) == 3 else None


def _start_serve(tmp_path, port: int) -> subprocess.Popen[bytes]:
    env = {**os.environ, "HARBORMASTER_DATA": str(tmp_path), "HARBORMASTER_LOG_LEVEL": "info"}
    env.pop("REDIS_URL", None)
    serve = subprocess.Popen(
        [sys.executable, "-m", "services.cli", "serve", "--demo", "--port", str(port)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # a process group of its own, as a terminal gives a command
    )
    deadline, first = time.monotonic() + 60, None
    # Running once every game has moved on from where it stood when the gateway first answered: the
    # fold worker and the bots are at work (a game's set-up alone already has events).
    while not (first and (now := _demo_seqs(port)) and all(now[g] > first[g] for g in first)):
        first = first or _demo_seqs(port)
        if serve.poll() is not None or time.monotonic() > deadline:
            os.killpg(serve.pid, signal.SIGKILL)
            raise AssertionError("serve never got its demo going")
        time.sleep(0.5)
    return serve


def _children(pid: int) -> dict[int, str]:
    """The processes whose parent is ``pid``, with their command lines (from /proc)."""
    found = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as stat, open(f"/proc/{entry}/cmdline", "rb") as cmd:
                    if int(stat.read().rsplit(")", 1)[1].split()[1]) == pid:
                        found[int(entry)] = cmd.read().replace(b"\0", b" ").decode()
            except (OSError, ValueError):
                continue
    return found


@pytest.mark.skipif(sys.platform != "linux", reason="parent-death signal is Linux's")
def test_when_serve_is_killed_its_workers_stop_on_their_own(tmp_path) -> None:
    serve = _start_serve(tmp_path, free_port())
    workers = {pid for pid, cmd in _children(serve.pid).items() if "services.cli" in cmd}
    assert len(workers) == 4  # a fold worker, an rq worker, the gateway and the log's sequencer
    serve.kill()  # no chance to stop anything itself
    serve.wait(timeout=10)
    deadline = time.monotonic() + 30
    while workers and time.monotonic() < deadline:
        workers = {pid for pid in workers if _alive(pid)}
        time.sleep(0.2)
    url = running_url(tmp_path)  # the embedded Redis outlives it: the next serve picks it up again
    assert url is not None
    redis.Redis.from_url(url).shutdown(nosave=True)
    assert not workers, "workers outlived serve"


def _alive(pid: int) -> bool:
    """Running, not a zombie waiting for a parent that is gone."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


STOPS = {
    # what Ctrl-C does: SIGINT to the terminal's whole foreground process group
    "ctrl_c": lambda serve: os.killpg(serve.pid, signal.SIGINT),
    # what a service manager, ``docker stop`` or Kubernetes does: SIGTERM to serve alone
    "sigterm": lambda serve: serve.send_signal(signal.SIGTERM),
}


@pytest.mark.skipif(sys.platform != "linux", reason="finds the children in /proc")
def test_serve_restarts_whatever_is_killed_and_the_games_go_on(tmp_path) -> None:
    """kill -9 of every child at once, and of the embedded Redis: all come back, the demo games move on."""
    port = free_port()
    serve = _start_serve(tmp_path, port)
    try:
        victims = _children(serve.pid)
        assert sum("redis-server" in cmd for cmd in victims.values()) == 1
        for pid in victims:
            os.kill(pid, signal.SIGKILL)
        before = None
        deadline = time.monotonic() + 90
        while not (before and (now := _demo_seqs(port)) and all(now[g] > before[g] for g in before)):
            before = before or _demo_seqs(port)
            assert serve.poll() is None and time.monotonic() < deadline, "serve did not recover"
            time.sleep(0.5)
        again = _children(serve.pid)
        assert len(again) == len(victims) and not set(again) & set(victims)  # all new processes
    finally:
        serve.send_signal(signal.SIGTERM)
        output, _ = serve.communicate(timeout=60)
    text = output.decode()
    assert "embedded_redis_restarted" in text and text.count("child_exited") >= 3, text[-3000:]


@pytest.mark.parametrize("how", sorted(STOPS))
def test_ctrl_c_or_sigterm_stops_the_workers_first_and_the_embedded_redis_last_without_an_error(
    tmp_path, how
) -> None:
    serve = _start_serve(tmp_path, free_port())
    try:
        STOPS[how](serve)
        # The children get 20 s together to stop warmly, then are killed (services/supervise.py).
        output, _ = serve.communicate(timeout=150)
    finally:
        if serve.poll() is None:
            os.killpg(serve.pid, signal.SIGKILL)
    text = output.decode()
    assert serve.returncode == 0, text[-2000:]
    assert "Traceback" not in text and "cannot reach Redis" not in text, text[-2000:]
    assert "hard_stop" not in text and "worker_stopped" in text, text[-2000:]
    assert text.index("worker_stopped") < text.index("embedded_redis_stopped")
    assert running_url(tmp_path) is None  # the append-only file flushed and Redis gone
