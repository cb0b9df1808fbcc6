"""Seeds: each entrant's strength when the tournament started (an account's rating ordinal, recorded in
``TournamentStarted.seeds``), so that the first round keeps the strongest apart and later rounds break
ties of points by them. An empty tuple (tournaments without accounts, and every export made before
seeds were recorded) means no seeding: pairing is then exactly what it was without them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from domain.tournament.history import Player

Seeds = tuple[float, ...]
"""One per entrant (player ``i`` has ``seeds[i]``), higher is stronger; empty: no seeding."""


def check_seeds(seeds: Seeds, entrants: int) -> None:
    """Seeds are none, or one finite number per entrant (they come from outside the tournament)."""
    if seeds and len(seeds) != entrants:
        raise ValueError(f"{len(seeds)} seeds for {entrants} entrants")
    if not all(math.isfinite(s) for s in seeds):
        raise ValueError("seeds are finite numbers")


def seed_of(seeds: Seeds, player: Player) -> float:
    """A player's seed (0 when there is no seeding, so it breaks no tie)."""
    return seeds[player] if seeds else 0.0


def by_seed(players: Sequence[Player], seeds: Seeds) -> list[Player]:
    """Strongest first; equal seeds in entrant order (the order used when there is no seeding)."""
    return sorted(players, key=lambda p: (-seed_of(seeds, p), p))


def deal(order: Sequence[Player], sizes: Sequence[int]) -> list[list[Player]]:
    """Players (strongest first) dealt to tables of ``sizes`` like cards, in snake order (1 2 3 3 2 1 …),
    so that the strongest sit at different tables and each table's strength is about even."""
    tables: list[list[Player]] = [[] for _ in sizes]
    index, step = 0, 1
    for player in order:
        while len(tables[index]) >= sizes[index]:
            index, step = _snake(index, step, len(tables))
        tables[index].append(player)
        index, step = _snake(index, step, len(tables))
    return tables


def _snake(index: int, step: int, count: int) -> tuple[int, int]:
    nxt = index + step
    if 0 <= nxt < count:
        return nxt, step
    return index, -step
