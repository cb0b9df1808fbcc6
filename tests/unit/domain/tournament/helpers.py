"""Shared helpers: exact minimum of repeats by brute force (small fields), and simulated rounds."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from domain.engine import Rng
from domain.tournament.history import History, RoundPairing, repeat_pairs


def partitions(players: Sequence[int], sizes: Sequence[int]):
    """Every way to split ``players`` into unordered tables of ``sizes`` ."""
    if not sizes:
        yield []
        return
    first, rest = players[0], players[1:]
    for size in set(sizes):  # the first player may sit at a table of any size
        sizes_left = list(sizes)
        sizes_left.remove(size)
        for others in itertools.combinations(rest, size - 1):
            left = [p for p in rest if p not in others]
            for tail in partitions(left, sizes_left):
                yield [(first, *others), *tail]


def fewest_repeats(players: Sequence[int], sizes: Sequence[int], history: History) -> int:
    return min(repeat_pairs(tables, history) for tables in partitions(list(players), list(sizes)))


def random_results(pairing: RoundPairing, scores: dict[int, int], rng: Rng) -> None:
    """Play a round by chance: places drawn at random, 6/5/3/1-style points added."""
    points = {2: (6, 1), 3: (6, 4, 1), 4: (6, 5, 3, 1), 5: (6, 5, 4, 2, 1)}
    for table in pairing.tables:
        for place, player in enumerate(rng.shuffled(table)):
            scores[player] = scores.get(player, 0) + points[len(table)][place]
    for player in pairing.byes:
        scores[player] = scores.get(player, 0) + 3
