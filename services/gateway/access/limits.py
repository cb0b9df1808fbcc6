"""Per-client limits of one gateway process: command rates (token buckets), WebSockets held and opened per
address, API reads per address, and each socket's frames.

In-process on purpose: a limit protects this process and the games it serves from one noisy client, and
costs no Redis round trip. Behind several gateways a client gets each gateway's allowance (say so in
``docs/limits.md``). The clock is passed in (``time.monotonic`` by default) so that tests need no sleeps.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

from services.config import Limits

MAX_BUCKETS = 100_000
"""Buckets kept before the full ones (clients quiet long enough to be back at their allowance) are dropped."""


class Bucket:
    """A token bucket: ``rate`` tokens a second, at most ``capacity`` saved up."""

    __slots__ = ("stamp", "tokens")

    def __init__(self, capacity: float, now: float) -> None:
        self.tokens = capacity
        self.stamp = now

    def spend(self, tokens: float, now: float, rate: float, capacity: float) -> bool:
        """Refill up to ``now``, then take ``tokens`` if there are that many."""
        self.tokens = min(capacity, self.tokens + (now - self.stamp) * rate)
        self.stamp = now
        if self.tokens < tokens:
            return False
        self.tokens -= tokens
        return True


class RateLimiter:
    """Token buckets by key (a token digest or an address); ``rate <= 0`` allows everything."""

    def __init__(
        self, rate: float, burst_seconds: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.rate = rate
        self.capacity = max(1.0, rate * burst_seconds)
        self.clock = clock
        self.buckets: dict[str, Bucket] = {}

    def take(self, key: str) -> float:
        """Spend one token of ``key``'s bucket: 0.0 if allowed, else the seconds until one is there."""
        if self.rate <= 0:
            return 0.0
        now = self.clock()
        bucket = self.buckets.get(key)
        if bucket is None:
            if len(self.buckets) >= MAX_BUCKETS:
                self._prune(now)
            bucket = self.buckets[key] = Bucket(self.capacity, now)
        return 0.0 if bucket.spend(1.0, now, self.rate, self.capacity) else (1.0 - bucket.tokens) / self.rate

    def _prune(self, now: float) -> None:
        """Forget buckets that have refilled (their clients would start full anyway)."""
        full = [k for k, b in self.buckets.items() if b.tokens + (now - b.stamp) * self.rate >= self.capacity]
        for key in full:
            del self.buckets[key]
        if len(self.buckets) >= MAX_BUCKETS:  # everyone is busy: forget the oldest half rather than grow
            for key in sorted(self.buckets, key=lambda k: self.buckets[k].stamp)[: MAX_BUCKETS // 2]:
                del self.buckets[key]


class FrameBudget(Bucket):
    """One WebSocket's allowance of client frames: a token bucket of its own (no dict, no key), charged for
    every frame whatever its kind, before it is parsed: a flood costs a few comparisons a frame, then ends."""

    __slots__ = ("capacity", "clock", "rate")

    def __init__(
        self, rate: float, burst_seconds: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.rate = rate
        self.capacity = max(1.0, rate * burst_seconds)
        self.clock = clock
        super().__init__(self.capacity, clock())

    def take(self, frames: int = 1) -> bool:
        """Spend a token a frame: False once the socket has sent more than its allowance."""
        return self.spend(frames, self.clock(), self.rate, self.capacity)


class SocketCounter:
    """Open WebSockets by client address, capped at ``cap`` (0: no cap)."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.open: dict[str, int] = {}

    def acquire(self, address: str) -> bool:
        held = self.open.get(address, 0)
        if self.cap > 0 and held >= self.cap:
            return False
        self.open[address] = held + 1
        return True

    def release(self, address: str) -> None:
        held = self.open.get(address, 0) - 1
        if held > 0:
            self.open[address] = held
        else:
            self.open.pop(address, None)


class ClientLimits:
    """Every limit of one gateway process, from ``Settings.limits``."""

    def __init__(self, limits: Limits, clock: Callable[[], float] = time.monotonic) -> None:
        self.limits = limits
        self.per_token = RateLimiter(limits.commands_per_token, limits.burst, clock)
        self.per_address = RateLimiter(limits.commands_per_address, limits.burst, clock)
        self.socket_opens = RateLimiter(limits.socket_opens_per_address, limits.burst, clock)
        self.reads = RateLimiter(limits.reads_per_address, limits.burst, clock)
        self.sockets = SocketCounter(limits.sockets_per_address)
        self.clock = clock
        self.refused = 0

    def address(self, address: str) -> float:
        """One command (or game created) from ``address``: 0.0, or the seconds to wait."""
        return self._count(self.per_address.take(address))

    def socket_open(self, address: str) -> float:
        """One WebSocket opened from ``address``: 0.0, or the seconds to wait."""
        return self._count(self.socket_opens.take(address))

    def read(self, address: str) -> float:
        """One ``GET /api/…`` from ``address``: 0.0, or the seconds to wait."""
        return self._count(self.reads.take(address))

    def token(self, token_key: str) -> float:
        """One command under a seat token (charged once the token is known to be valid)."""
        return self._count(self.per_token.take(token_key))

    def frame_budget(self) -> FrameBudget | None:
        """A new socket's allowance of frames (None when the limit is off)."""
        rate = self.limits.frames_per_socket
        return FrameBudget(rate, self.limits.burst, self.clock) if rate > 0 else None

    def _count(self, wait: float) -> float:
        if wait > 0.0:
            self.refused += 1
        return wait


def retry_after(seconds: float) -> str:
    """A ``Retry-After`` header value: whole seconds, at least 1."""
    return str(max(1, math.ceil(seconds)))
