"""Rate-limit arithmetic: a sliding log of recent attempts, kept by the caller (in Redis or memory).

Pure: ``now`` is passed in. A window of ``limit`` attempts per ``period`` seconds; the answer is how long
to wait before the next attempt is allowed (0 when allowed now).
"""

from __future__ import annotations

from collections.abc import Sequence


class Window:
    """``limit`` attempts in any ``period`` seconds."""

    __slots__ = ("limit", "period")

    def __init__(self, limit: int, period: float) -> None:
        if limit < 1 or period <= 0:
            raise ValueError("a window needs a limit of at least 1 and a positive period")
        self.limit = limit
        self.period = period

    def recent(self, attempts: Sequence[float], now: float) -> list[float]:
        """The attempts still inside the window at ``now``, oldest first."""
        return sorted(t for t in attempts if now - self.period < t <= now)

    def wait(self, attempts: Sequence[float], now: float) -> float:
        """Seconds until one more attempt fits in the window (0: it fits now)."""
        inside = self.recent(attempts, now)
        if len(inside) < self.limit:
            return 0.0
        oldest_that_must_leave = inside[len(inside) - self.limit]
        return max(0.0, oldest_that_must_leave + self.period - now)
