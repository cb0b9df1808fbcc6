"""``serve``'s stop: a SIGTERM is never taken for an error of the periodic pass, and the children's stop has
one deadline, after which what is left is killed with what it started.

A ``make test`` once saw ``serve`` on the Cluster not stop within 90 s of its SIGTERM: the signal had landed
inside the periodic pass (the reconcilers), whose ``except Exception`` logged it as ``periodic_failed``, and
``serve`` went on running. Both cases are made to happen here, without Redis, with real signals and real
processes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from structlog.testing import capture_logs

from services.serve import Terminated, raise_terminated
from services.supervise import Child, Supervisor
from tests.support.pipeline import eventually


class _WentOn(BaseException):
    """The supervisor ran another pass after the SIGTERM (a ``BaseException``: nothing there isolates it)."""


@pytest.fixture
def serve_handler() -> Iterator[None]:
    """``serve``'s SIGTERM handler in this process for the test."""
    previous = signal.signal(signal.SIGTERM, raise_terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def test_a_sigterm_inside_the_periodic_pass_stops_the_supervisor(serve_handler: None) -> None:
    passes: list[int] = []

    def periodic() -> None:
        passes.append(len(passes))
        if len(passes) > 1:
            raise _WentOn
        os.kill(os.getpid(), signal.SIGTERM)  # the handler runs here, inside the pass, as under load

    supervisor = Supervisor("redis://127.0.0.1:1", [], periodic=periodic, every_s=0.0)
    with pytest.raises(Terminated):
        supervisor.run_forever(poll_s=0.0)
    assert passes == [0]


STUBBORN = """
import signal, subprocess, sys, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
started = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
print(started.pid, flush=True)
time.sleep(600)
"""
"""A child that ignores SIGTERM, and has started a process of its own (as an rq worker its work horse)."""


def _gone(pid: int) -> bool:
    """Whether ``pid`` has ended (a zombie no one has reaped yet has too)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except (FileNotFoundError, ProcessLookupError):
        return True


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")
def test_children_that_ignore_sigterm_are_killed_with_what_they_started_after_one_deadline() -> None:
    def start(code: str) -> subprocess.Popen[bytes]:
        return subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, start_new_session=True)

    stubborn = [start(STUBBORN), start(STUBBORN)]
    started = [int(process.stdout.readline()) for process in stubborn if process.stdout is not None]
    polite = start("import time; print('ready', flush=True); time.sleep(600)")
    assert polite.stdout is not None and polite.stdout.readline() == b"ready\n"
    children = [Child(name=f"stubborn-{n}", argv=[], process=p) for n, p in enumerate(stubborn)]
    children.append(Child(name="polite", argv=[], process=polite))
    try:
        with capture_logs() as logs:
            Supervisor("redis://127.0.0.1:1", children).stop(grace_s=1.0)
    finally:
        for process in [*stubborn, polite]:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()

    assert [p.returncode for p in stubborn] == [-signal.SIGKILL, -signal.SIGKILL]
    assert polite.returncode == -signal.SIGTERM
    eventually(lambda: all(_gone(pid) for pid in started), timeout=10, message="the stubborn ones' own")
    assert [entry["child"] for entry in logs if entry["event"] == "child_killed"] == [
        "stubborn-0",
        "stubborn-1",
    ]
