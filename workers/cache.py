"""An LRU cache of hot game states, so a worker folds each game once and then only new events."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable

from events.store import LoadedGame


class StateCache:
    """Game id -> ``LoadedGame``; the least recently used game falls out first."""

    def __init__(self, capacity: int = 10_000) -> None:
        self.capacity = capacity
        self._games: OrderedDict[str, LoadedGame] = OrderedDict()

    def get(self, game_id: str) -> LoadedGame | None:
        loaded = self._games.get(game_id)
        if loaded is not None:
            self._games.move_to_end(game_id)
        return loaded

    def put(self, game_id: str, loaded: LoadedGame) -> None:
        self._games[game_id] = loaded
        self._games.move_to_end(game_id)
        while len(self._games) > self.capacity:
            self._games.popitem(last=False)

    def drop(self, game_id: str) -> None:
        self._games.pop(game_id, None)

    def drop_where(self, stale: Callable[[str], bool]) -> None:
        """Forget every game for which ``stale(game_id)`` holds (partitions that changed hands)."""
        for game_id in [g for g in self._games if stale(g)]:
            del self._games[game_id]
