"""Seat order at a table: balance each player's seat positions over the rounds (the first seat matters
in all three games)."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from domain.engine import Rng
from domain.tournament.history import History, Player, Table


def _cost(order: Sequence[Player], history: History) -> tuple[int, int]:
    """Times each player already sat in the seat offered, summed; the first seat's repeats weigh most
    (compared first) because it is the one that decides who starts."""
    first = history.seat_count(order[0], 0)
    return first, sum(history.seat_count(p, seat) for seat, p in enumerate(order))


def seat_table(players: Sequence[Player], history: History, rng: Rng) -> Table:
    """The seat order with the fewest repeated positions; equal orders are chosen among by ``rng`` (a
    shuffle before the search, whose first best order wins) so nobody is favoured by entrant number."""
    shuffled = rng.shuffled(players)
    best: tuple[Player, ...] = tuple(shuffled)
    best_cost = _cost(best, history)
    if best_cost == (0, 0):
        return best
    for order in itertools.permutations(shuffled):
        cost = _cost(order, history)
        if cost < best_cost:
            best, best_cost = order, cost
            if cost == (0, 0):
                break
    return best
