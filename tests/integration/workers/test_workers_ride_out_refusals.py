"""Issue 43, finding 11: while Redis refuses writes (out of memory under ``noeviction``, or a failed snapshot
with ``stop-writes-on-bgsave-error``: a full disk), the fold worker, the rq worker (with its bot runner) and
the log's sequencer crash-looped (48 exits with code 1). Now each waits with a capped back-off, logs the
stretch once, and folds, runs and signs again once the condition is lifted.

Each condition is made real on a Redis of the test's own; the processes are the real ``harbormaster``
commands that ``serve`` supervises."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from services.redis_launcher import EmbeddedRedis
from tests.support.pipeline import (
    TEST_PLUGINS,
    eventually,
    new_race,
    services_for,
    stop_process,
    wait_for_results,
)
from tests.support.refusals import Condition, failed_save, out_of_memory
from workers.outage import refuses_writes

ROLL = b'{"type":"Roll"}'
PARTITIONS = 4


def refusals(client: redis.Redis, code: str) -> int:
    """How many commands Redis has refused with ``code`` since it started (``INFO errorstats``)."""
    stat = client.info("errorstats").get(f"errorstat_{code}")
    return int(stat["count"]) if stat else 0


class Part:
    """One ``harbormaster`` process, its log in a file."""

    def __init__(self, verb: list[str], env: dict[str, str], log: Path) -> None:
        self.log = log
        self.handle = log.open("wb")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "services.cli", *verb], env=env, stdout=self.handle, stderr=self.handle
        )

    def text(self) -> str:
        return self.log.read_text(errors="replace")

    def met_a_refusal(self) -> bool:
        return "redis_refusing_writes" in self.text()

    def stop(self) -> int:
        code = (
            # a warm stop is what is checked, not its speed: at load 20 a worker finishing its job took over 30 s
            stop_process(self.process, timeout=120)
            if self.process.poll() is None
            else self.process.returncode
        )
        self.handle.close()
        return code


@pytest.fixture
def parts(tmp_path: Path) -> Iterator[tuple[EmbeddedRedis, dict[str, Part]]]:
    """Redis of the test's own, and a fold worker, an rq worker (with its bot runner) and a sequencer on it."""
    with EmbeddedRedis(tmp_path / "redis") as server:
        env = {
            **os.environ,
            "REDIS_URL": server.url,
            "HARBORMASTER_DATA": str(tmp_path / "home"),
            "HARBORMASTER_PARTITIONS": str(PARTITIONS),
            "HARBORMASTER_GAME_PLUGINS": TEST_PLUGINS,
            "HARBORMASTER_LOG_LEVEL": "warning",
            "HARBORMASTER_LOG_INTERVAL": "0.2",
        }
        verbs = {"fold": ["worker"], "rq": ["rq-worker"], "log_sequencer": ["sequencer"]}
        running = {name: Part(verb, env, tmp_path / f"{name}.log") for name, verb in verbs.items()}
        try:
            yield server, running
        finally:
            codes = {name: part.stop() for name, part in running.items()}
            # A warm stop, also after the stretch (the sequencer's SIGTERM is an interrupt: 130).
            assert codes == {"fold": 0, "rq": 0, "log_sequencer": 130}, codes


@pytest.mark.parametrize(
    ("condition", "code"), [(out_of_memory, "OOM"), (failed_save, "MISCONF")], ids=["oom", "misconf"]
)
def test_workers_wait_out_a_redis_refusing_writes_and_work_again_once_it_takes_them(
    parts: tuple[EmbeddedRedis, dict[str, Part]], condition: Condition, code: str
) -> None:
    server, running = parts
    services = services_for(server.url, partitions=PARTITIONS)
    client = redis.Redis.from_url(server.url)
    try:
        eventually(lambda: client.scard("rq:workers") > 0, timeout=60, message="the rq worker registered")
        # The sequencer is paused while the game moves: woken under the condition, it has a head to log.
        sequencer = running["log_sequencer"].process
        sequencer.send_signal(signal.SIGSTOP)
        new_race(services, "g1")
        first = services.bus.submit("g1", 0, ROLL)
        assert wait_for_results(services, [("g1", first, 0)])[("g1", first, 0)].status == "applied"

        lift = condition(client)
        sequencer.send_signal(signal.SIGCONT)
        try:
            # Each part meets the refusal (its one warning of the stretch) and, alive, keeps trying.
            for name, part in running.items():
                eventually(part.met_a_refusal, timeout=60, message=f"{name} met the refusal")
            met = refusals(client, code)
            eventually(lambda: refusals(client, code) >= met + 20, timeout=60, message="more attempts")
            assert all(part.process.poll() is None for part in running.values())
            with pytest.raises(redis.ResponseError) as refused:
                services.bus.submit("g1", 1, ROLL)  # the condition holds: nothing could be written
            assert refuses_writes(refused.value)
        finally:
            lift()

        second = services.bus.submit("g1", 1, ROLL)
        assert wait_for_results(services, [("g1", second, 1)])[("g1", second, 1)].status == "applied"
        assert all(part.process.poll() is None for part in running.values())
        for name, part in running.items():
            text = part.text()
            stretches = [line for line in text.splitlines() if "redis_refusing_writes" in line]
            who = [re.search(r"worker=(\w+)", line) for line in stretches]
            labels = [found.group(1) for found in who if found]
            assert labels and len(labels) == len(set(labels)), (name, stretches)  # once a stretch, each
            assert "Traceback" not in text, (name, text[-2000:])
    finally:
        client.close()


@pytest.mark.parametrize(
    ("error", "refusal"),
    [
        (redis.exceptions.OutOfMemoryError("command not allowed when used memory > 'maxmemory'."), True),
        (
            redis.ResponseError(
                "MISCONF Redis is configured to save RDB snapshots, but it's currently unable"
            ),
            True,
        ),
        (redis.ResponseError("Command # 1 (XADD k * m x) of pipeline caused error: MISCONF Redis is"), True),
        (
            redis.ResponseError("OOM command not allowed when used memory > 'maxmemory'."),
            True,
        ),  # our pipelines
        (redis.exceptions.ReadOnlyError("You can't write against a read only replica."), True),
        (redis.ResponseError("WRONGTYPE Operation against a key holding the wrong kind of value"), False),
        (redis.ResponseError("ERR MISCONF in a value someone wrote"), False),
        (ValueError("OOM"), False),
    ],
)
def test_a_refusal_is_told_from_an_error_of_one_key(error: Exception, refusal: bool) -> None:
    assert refuses_writes(error) is refusal


def test_an_rq_worker_asked_to_stop_while_redis_refuses_writes_stops(tmp_path: Path) -> None:
    """A clean-clone ``make test`` saw an rq worker outlive its SIGTERM by minutes: rq took the stop, its
    teardown's first write (``SREM rq:workers``) was refused (a failed snapshot), and the outage loop
    started rq again as after any refusal. A stop asked for is a stop, whatever Redis says to the teardown."""
    with EmbeddedRedis(tmp_path / "redis") as server:
        env = {
            **os.environ,
            "REDIS_URL": server.url,
            "HARBORMASTER_DATA": str(tmp_path / "home"),
            "HARBORMASTER_LOG_LEVEL": "info",
        }
        rq = Part(["rq-worker"], env, tmp_path / "rq.log")
        client = redis.Redis.from_url(server.url)
        try:
            eventually(lambda: client.scard("rq:workers") > 0, timeout=60, message="the rq worker registered")
            lift = failed_save(client)
            try:
                refused_before = refusals(client, "MISCONF")
                rq.process.send_signal(signal.SIGTERM)
                code = rq.process.wait(timeout=60)  # before: still running, a new rq run after each wait
                refused = refusals(client, "MISCONF") - refused_before
            finally:
                lift()
            assert code == 0, rq.text()[-2000:]
            assert refused > 0  # the teardown met the refusal, and still stopped
        finally:
            if rq.process.poll() is None:
                rq.process.kill()
                rq.process.wait()
            rq.handle.close()
            client.close()
