"""The foundation bench's load generator: it stands for clients on other machines, so it sends on a schedule
with messages encoded before the clock starts (stamped as each tick is sent), at a raised priority, and a CPU
meter reads what Redis, the workers and the sending cost."""

from __future__ import annotations

import contextlib
import gc
import math
import os
import resource
import struct
import time
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

from events import codec, keys
from events.envelope import InboxMessage
from events.keys import partition_for
from events.store import now_ms
from events.transport.pipelined import Pipelined

GAMES = 200
PARTITIONS = 16
NOTE = b'{"type":"Note","text":"x"}'


@contextlib.contextmanager
def pinned(redis_pid: int | None, worker_pids: list[int]) -> Iterator[None]:
    """Redis on the first core alone, the workers, the probe and this process on the others, for the
    duration (as one gives Redis a core of its own in production); nothing is pinned without
    ``redis_pid``."""
    cores = sorted(os.sched_getaffinity(0))
    if redis_pid is None or len(cores) < 2:
        yield
        return
    os.sched_setaffinity(redis_pid, cores[:1])
    for pid in [*worker_pids, 0]:
        os.sched_setaffinity(pid, cores[1:])
    try:
        yield
    finally:
        os.sched_setaffinity(redis_pid, cores)
        os.sched_setaffinity(0, cores)


GENERATOR_NICE = -5
"""The load generator's scheduling priority while it sends (where the process may raise it)."""


@contextlib.contextmanager
def ahead_in_the_queue() -> Iterator[bool]:
    """The load generator stands for clients on other machines: it gets a core before the workers and
    Redis when they contend, so that it keeps its schedule and stamps each command as it is sent. Without
    it, two workers starved it and the bisection took its falling behind for saturation (14,100/s, where
    the workers kept up with 21,900/s once it had its core). Yields whether the priority was raised."""
    try:
        os.setpriority(os.PRIO_PROCESS, 0, GENERATOR_NICE)
    except (PermissionError, AttributeError, OSError):
        yield False
        return
    try:
        yield True
    finally:
        os.setpriority(os.PRIO_PROCESS, 0, 0)


def _send_steadily(services, rate: float, seconds: float, meter: CpuMeter) -> tuple[int, CpuUse]:
    """The load generator: ``rate`` commands a second, spread over the games, each stamped as it is sent
    (``ahead_in_the_queue``). Returns how many commands the games have had, the warm-up's included, and
    the CPU time spent while sending."""
    with ahead_in_the_queue():
        return _send_on_schedule(services, rate, seconds, meter)


class CpuUse(NamedTuple):
    """The CPU time of Redis, the workers and the load generator while the load was sent: what a command
    costs each, and how much of a core each used. On two cores, their sum says how much room is left."""

    redis: float
    workers: float
    generator: float
    seconds: float
    commands: int

    def describe(self) -> str:
        parts = (("Redis", self.redis), ("workers", self.workers), ("load generator", self.generator))
        return "CPU a command: " + ", ".join(
            f"{name} {spent / max(1, self.commands) * 1e6:.1f} us ({spent / self.seconds:.0%} of a core)"
            for name, spent in parts
        )


class CpuMeter:
    """Reads the CPU time counters of Redis (``INFO cpu``), the worker processes (``/proc/PID/stat``) and
    this process (the load generator) at the start and the end of the sending."""

    def __init__(self, client, worker_pids: list[int]) -> None:
        self.client = client
        self.worker_pids = worker_pids
        self._started: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)

    def start(self) -> None:
        self._started = (*self._counters(), time.perf_counter())

    def stop(self, commands: int) -> CpuUse:
        redis_s, workers_s, own_s = self._counters()
        redis_0, workers_0, own_0, started = self._started
        return CpuUse(
            redis_s - redis_0, workers_s - workers_0, own_s - own_0, time.perf_counter() - started, commands
        )

    def _counters(self) -> tuple[float, float, float]:
        own = resource.getrusage(resource.RUSAGE_SELF)
        return (
            redis_cpu_seconds(self.client),
            sum(_process_cpu_seconds(pid) for pid in self.worker_pids),
            own.ru_utime + own.ru_stime,
        )


def redis_cpu_seconds(client) -> float:
    """The CPU time (s) Redis has used since it started, all its threads (``INFO cpu``)."""
    info = client.info("cpu")
    return float(info["used_cpu_user"]) + float(info["used_cpu_sys"])


def _process_cpu_seconds(pid: int) -> float:
    """A process's user and system time so far (``/proc/PID/stat``), 0 where it cannot be read."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


TICK_S = 0.002
"""The load generator sends a tick's commands every 2 ms."""
PLACEHOLDER_MS = 0x7FEE_DDCC_BBAA_9988
"""A submission time no clock shows. It is encoded as msgpack's 8-byte unsigned integer, as every real one
is (they are all past 2**32 ms), so a tick's messages are encoded before the clock starts and stamped by
replacing its 8 bytes (``_stamped``)."""
_PLACEHOLDER = struct.pack(">Q", PLACEHOLDER_MS)


def _send_on_schedule(services, rate: float, seconds: float, meter: CpuMeter) -> tuple[int, CpuUse]:
    # The load generator stands for clients on other machines but shares the two cores with what it
    # measures: every XADD is encoded and packed (hiredis) before the clock starts, so that sending a tick
    # costs one stamp of its bytes and one write on a wire of its own (its replies read a tick later).
    wire = Pipelined(services.redis)
    per_tick = max(1, round(rate * TICK_S))
    ticks = _packed_ticks(wire, per_tick, math.ceil(seconds / TICK_S) + 1)
    sent, unread = GAMES, 0
    # A collector pause between stamping a tick's commands and sending them would count as latency.
    gc.disable()
    meter.start()
    started = time.perf_counter()
    for packed in ticks:
        if time.perf_counter() - started >= seconds:
            break
        wire.send_packed(_stamped(packed, now_ms()), per_tick)
        wire.receive(unread)
        sent, unread = sent + per_tick, per_tick
        next_at = started + ((sent - GAMES) / per_tick) * TICK_S
        time.sleep(max(0.0, next_at - time.perf_counter()))
    wire.receive(unread)
    cpu = meter.stop(sent - GAMES)
    wire.close()
    gc.enable()
    return sent, cpu


def _packed_ticks(wire: Pipelined, per_tick: int, ticks: int) -> list[bytes]:
    """Each tick's XADDs (commands ``GAMES``, ``GAMES + 1``, ... spread over the games' inboxes), packed,
    with ``PLACEHOLDER_MS`` for their submission time."""
    inboxes = [keys.inbox(partition_for(f"b{g}", PARTITIONS)) for g in range(GAMES)]
    packed = []
    for tick in range(ticks):
        first = GAMES + tick * per_tick
        calls = [
            ("XADD", inboxes[n % GAMES], "*", "m", _inbox_bytes(n, PLACEHOLDER_MS))
            for n in range(first, first + per_tick)
        ]
        payload = wire.pack(calls)
        assert payload.count(_PLACEHOLDER) == per_tick, "the placeholder must stand only for the times"
        packed.append(payload)
    return packed


def _stamped(packed: bytes, submitted_ms: int) -> bytes:
    """A tick's packed XADDs with ``submitted_ms`` in place of the placeholder."""
    return packed.replace(_PLACEHOLDER, struct.pack(">Q", submitted_ms))


def _inbox_bytes(n: int, submitted_ms: int) -> bytes:
    message = InboxMessage(
        game_id=f"b{n % GAMES}", command_id=f"lat-{n}", seat=0, command=NOTE, submitted_ms=submitted_ms
    )
    return codec.encode_inbox(message)
