"""When a gateway on a Redis Cluster reads each watched game next (``hub.py`` polls there; see why in its
docstring).

Each game has its own pause: a read that found news is followed by the next after ``POLL_FIRST_S`` (a
game in play is followed closely), a quiet read doubles the pause up to ``POLL_MOST_S`` (a quiet game costs
about ``2 / POLL_MOST_S`` reads a second). A command submitted through this gateway, or a game newly
watched, makes that game due at once. So the reads follow the games' activity, not the number watched.
Pure: the caller passes the clock.
"""

from __future__ import annotations

from collections.abc import Iterable

POLL_FIRST_S = 0.005
"""The pause after a read that found news."""
POLL_MOST_S = 0.08
"""The longest pause of a quiet game (the most a spectator waits for a move, beyond Redis and the fold)."""


class PollSchedule:
    """Each watched game's next read and current pause."""

    def __init__(self) -> None:
        self._next: dict[str, float] = {}
        self._pause: dict[str, float] = {}

    def due(self, game_ids: Iterable[str], now: float) -> list[str]:
        """The games to read now (a game never read is due)."""
        return [g for g in game_ids if self._next.get(g, 0.0) <= now]

    def next_at(self, game_ids: Iterable[str]) -> float:
        """When the first of these games is due."""
        return min((self._next.get(g, 0.0) for g in game_ids), default=0.0)

    def read(self, game_id: str, news: bool, now: float) -> None:
        """Note a read of the game made at ``now``, and whether it found anything."""
        pause = POLL_FIRST_S if news else min(POLL_MOST_S, 2 * self._pause.get(game_id, POLL_FIRST_S / 2))
        self._pause[game_id] = pause
        self._next[game_id] = now + pause

    def wake(self, game_id: str) -> None:
        """The game is due at once, and followed closely: news is expected."""
        self._next[game_id] = 0.0
        self._pause[game_id] = POLL_FIRST_S / 2

    def forget(self, game_id: str) -> None:
        self._next.pop(game_id, None)
        self._pause.pop(game_id, None)
