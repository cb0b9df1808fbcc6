"""The fault injector: ``kill -9`` of a random supervised process at random moments, each followed by a
check that the role came back (a new process, and for the gateway and Redis, answering again).

``rollback`` is Redis losing its last seconds, as after a power loss under ``appendfsync everysec`` or a
failover to a replica that lagged: its append-only file is copied, the games play on for a few seconds,
then Redis is killed and ``serve`` starts it again on the copy."""

from __future__ import annotations

import os
import random
import signal
import threading
import time

import httpx
import redis

from tests.chaos.procs import Serve
from tests.support.rollback import copy_aof, restore_aof

WEIGHTS = {"fold": 3, "rq": 2, "horse": 3, "gateway": 2, "redis": 1, "rollback": 1}
ROLLBACK_S = (2.0, 4.0)
"""How many seconds of writes a rollback takes away (what the games did between the copy and the kill)."""
MISSES = 20
"""How often a kind not injected yet is looked for again before the run gives up on it."""
RECOVERY_S = 45.0
"""How long a role may take to come back before the fault counts as not survived."""


class FaultInjector:
    def __init__(
        self, serve: Serve, seed: int, gap_s: tuple[float, float], kinds: dict[str, int] | None = None
    ):
        self.serve = serve
        self.rng = random.Random(seed)
        self.gap_s = gap_s
        self.kinds = kinds or WEIGHTS
        self.injected: dict[str, int] = {}
        self.survived: dict[str, int] = {}
        self.not_found = 0
        self.rollbacks: list[tuple[float, float]] = []
        """Each rollback's window (``time.time()``): from the copy of the append-only file to Redis answering
        again on it. What was acknowledged in it may be lost, as documented."""
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, name="faults", daemon=True)

    def start(self) -> None:
        self.thread.start()

    def finish(self) -> None:
        self.stop.set()
        self.thread.join(timeout=RECOVERY_S + 10)

    def _run(self) -> None:
        # Every role once first, in a random order, then at random by weight; until stopped (and at least
        # once each even when stopped early, so that a short run still tries every fault).
        pending = list(self.kinds)
        self.rng.shuffle(pending)
        if "horse" in pending:
            # A work-horse lives only while a bot's job runs: look for one first, while every game still
            # plays, not after a short run's games may all have ended.
            pending.remove("horse")
            pending.append("horse")
        while True:
            stopped = self.stop.wait(self.rng.uniform(*self.gap_s))
            if stopped and not pending:
                return
            kinds, weights = list(self.kinds), list(self.kinds.values())
            kind = pending.pop() if pending else self.rng.choices(kinds, weights=weights)[0]
            retry = not stopped and kind not in self.injected and self.not_found < MISSES
            if not self.inject(kind) and retry:
                pending.append(kind)  # none running just then (a work-horse between jobs): again next

    def inject(self, kind: str) -> bool:
        """Kill one process of ``kind`` (work-horses live only while a job runs: look for a second)."""
        if kind == "rollback":
            return self.roll_back()
        deadline = time.monotonic() + 5.0
        victims = self.serve.pids(kind)
        while not victims and time.monotonic() < deadline:
            time.sleep(0.005)
            victims = self.serve.pids(kind)
        if not victims:
            self.not_found += 1
            return False
        victim = self.rng.choice(victims)
        try:
            os.kill(victim, signal.SIGKILL)
        except ProcessLookupError:
            self.not_found += 1
            return False
        self.injected[kind] = self.injected.get(kind, 0) + 1
        if self._recovered(kind, victim):
            self.survived[kind] = self.survived.get(kind, 0) + 1
        return True

    def roll_back(self) -> bool:
        """Copy Redis's append-only file, let the games play on, then kill Redis and put the copy back
        while ``serve`` is stopped (it would start Redis again on the newer file at once)."""
        data, copy = self.serve.folder / "data", self.serve.folder / "aof-copy"
        started = time.time()
        copy_aof(data, copy)
        time.sleep(self.rng.uniform(*ROLLBACK_S))
        victims = self.serve.pids("redis")
        if not victims:
            self.not_found += 1
            return False
        os.kill(self.serve.process.pid, signal.SIGSTOP)
        try:
            os.kill(victims[0], signal.SIGKILL)
            deadline = time.monotonic() + 5.0
            while victims[0] in self.serve.pids("redis") and time.monotonic() < deadline:
                time.sleep(0.01)  # gone, or a zombie that has let go of its files
            restore_aof(data, copy)
        finally:
            os.kill(self.serve.process.pid, signal.SIGCONT)
        self.injected["rollback"] = self.injected.get("rollback", 0) + 1
        survived = self._recovered("redis", victims[0])
        self.rollbacks.append((started, time.time()))
        if survived:
            self.survived["rollback"] = self.survived.get("rollback", 0) + 1
        return True

    def in_rollback(self, at: float) -> bool:
        """Whether ``at`` (``time.time()``) falls in the seconds a rollback took away."""
        return any(start <= at <= end for start, end in self.rollbacks)

    def _recovered(self, kind: str, victim: int) -> bool:
        role = "rq" if kind == "horse" else kind
        deadline = time.monotonic() + RECOVERY_S
        while time.monotonic() < deadline:
            alive = [pid for pid in self.serve.pids(role) if pid != victim]
            if alive and self._answers(kind):
                return True
            time.sleep(0.1)
        return False

    def _answers(self, kind: str) -> bool:
        try:
            if kind == "gateway":
                return httpx.get(f"{self.serve.base}/healthz", timeout=2).status_code == 200
            if kind == "redis":
                client = redis.Redis.from_url(self.serve.redis_url, socket_connect_timeout=1)
                try:
                    return bool(client.ping())
                finally:
                    client.close()
        except (httpx.HTTPError, redis.RedisError, OSError):
            return False
        return True
