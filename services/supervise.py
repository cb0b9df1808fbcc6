"""``serve``'s supervisor: its children (gateway, fold workers, rq worker) and the embedded Redis kept alive.

A child that exits for any reason (``kill -9``, an uncaught error) is started again after a back-off that
doubles from a quarter of a second up to ten seconds while it keeps dying, and starts over once it has run
for half a minute. The embedded Redis is started again on its data folder and port, so its URL stays the
same and every client reconnects to it; the append-only file gives back everything it acknowledged. A
periodic task (the bot reconciler) runs between checks. At the end the children get SIGTERM together and one
deadline to stop warmly; what is left then is killed.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Callable, Sequence

import msgspec
import redis
import structlog

from services.children import spawn
from services.redis_launcher import EmbeddedRedis

log = structlog.get_logger("supervise")

REDIS_START_TIMEOUT_S = 120.0
"""Loading a large append-only file takes a while; the clients wait and retry meanwhile."""
ADOPTED_CHECK_S = 1.0
"""How often an adopted embedded Redis (one a killed ``serve`` left running) is asked whether it is up."""
STOP_GRACE_S = 20.0
"""How long the children together get to stop warmly after their SIGTERM before they are killed (the whole
stop of a ``serve`` with six children on the Cluster took 1.0-1.5 s at a load of 15-25 on 2 cores)."""


class Backoff(msgspec.Struct, kw_only=True):
    first_s: float = 0.25
    most_s: float = 10.0
    healthy_after_s: float = 30.0
    current_s: float = 0.25

    def after(self, ran_for_s: float) -> float:
        """The wait before the next start of something that ran for ``ran_for_s`` before it died."""
        if ran_for_s >= self.healthy_after_s:
            self.current_s = self.first_s
        delay, self.current_s = self.current_s, min(self.most_s, self.current_s * 2)
        return delay


class Child(msgspec.Struct, kw_only=True):
    """One supervised ``harbormaster <argv>`` process."""

    name: str
    argv: list[str]
    env: dict[str, str] = {}
    """Environment of this child besides the supervisor's own (``serve`` quietens the workers' logs)."""
    process: subprocess.Popen[bytes] | None = None
    started_at: float = 0.0
    due_at: float = 0.0
    """When to start it (again), while ``process`` is ``None``."""
    restarts: int = 0
    backoff: Backoff = msgspec.field(default_factory=Backoff)


class Supervisor:
    """Starts the children, restarts whatever dies, runs ``periodic`` every ``every_s`` seconds."""

    def __init__(
        self,
        url: str,
        children: Sequence[Child],
        redis_server: EmbeddedRedis | None = None,
        periodic: Callable[[], object] | None = None,
        every_s: float = 3.0,
    ) -> None:
        self.url = url
        self.children = list(children)
        self.redis_server = redis_server
        self.redis_backoff = Backoff()
        self.redis_due_at = 0.0
        self.redis_checked_at = 0.0
        self.redis_restarts = 0
        self.periodic = periodic
        self.every_s = every_s
        self._periodic_due_at = 0.0

    def tick(self) -> None:
        """One round: Redis first (the children need it), then each child, then the periodic task."""
        now = time.monotonic()
        self._check_redis(now)
        for child in self.children:
            self._check_child(child, now)
        if self.periodic is not None and now >= self._periodic_due_at:
            self._periodic_due_at = now + self.every_s
            try:
                self.periodic()
            except (redis.RedisError, OSError) as exc:  # Redis down or restarting: next round
                log.info("periodic_skipped", error=str(exc))
            except Exception:  # a bug or a bad record the task did not isolate: never the supervisor's end
                log.exception("periodic_failed")

    def run_forever(self, poll_s: float = 0.2) -> None:
        while True:
            self.tick()
            time.sleep(poll_s)

    def _check_child(self, child: Child, now: float) -> None:
        if child.process is not None:
            code = child.process.poll()
            if code is None:
                return
            delay = child.backoff.after(now - child.started_at)
            log.warning(
                "child_exited", child=child.name, pid=child.process.pid, code=code, restart_in_s=delay
            )
            child.process, child.due_at = None, now + delay
            child.restarts += 1
        if now >= child.due_at:
            child.process, child.started_at = spawn(child.argv, self.url, child.env), now
            log.info("child_started", child=child.name, pid=child.process.pid, restarts=child.restarts)

    def _check_redis(self, now: float) -> None:
        server = self.redis_server
        if server is None or (server.process is None and not server.adopted) or now < self.redis_due_at:
            return
        if server.process is None and now < self.redis_checked_at + ADOPTED_CHECK_S:
            return  # an adopted server is checked by PING, once a second, not by its process every tick
        self.redis_checked_at = now
        if server.running():
            return
        code = server.process.returncode if server.process is not None else None
        log.warning("embedded_redis_died", code=code, data_dir=str(server.data_dir), adopted=server.adopted)
        self.redis_restarts += 1
        try:
            server.start(timeout=REDIS_START_TIMEOUT_S)
        except RuntimeError as exc:
            self.redis_due_at = now + self.redis_backoff.after(0.0)
            log.error("embedded_redis_restart_failed", error=str(exc))
            return
        self.redis_backoff = Backoff()
        log.info("embedded_redis_restarted", url=server.url, restarts=self.redis_restarts)

    def stop(self, grace_s: float = STOP_GRACE_S) -> None:
        """Warm stop (SIGTERM) of every child at once; whichever is still running ``grace_s`` later is
        killed, with what it started (``_kill_group``). One deadline for them all, so a stop never waits
        without end. The embedded Redis is the caller's."""
        started = time.monotonic()
        running = [(child.name, child.process) for child in self.children if child.process is not None]
        for _, process in running:
            process.terminate()
        deadline = started + grace_s
        for name, process in running:
            try:
                code = process.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                _kill_group(process)
                process.wait()
                log.warning("child_killed", child=name, pid=process.pid, grace_s=grace_s)
            else:
                took_s = round(time.monotonic() - started, 2)
                log.info("child_stopped", child=name, pid=process.pid, code=code, took_s=took_s)


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    """SIGKILL to the child's process group: ``spawn`` gives each child a session of its own, so this also
    reaches what it started (an rq worker's work horse, which would otherwise finish its job orphaned). A
    child that leads no group of its own is killed alone."""
    try:
        os.killpg(process.pid, signal.SIGKILL)  # its own group: the pid is still ours, not yet waited for
    except ProcessLookupError:
        process.kill()
