"""How many tables of which size a round needs, and how many byes (BGA's rule for multi-seat Swiss).

Tables have the organiser's size; a remainder is absorbed by tables one seat smaller where the game's
seat range allows it, and only where it does not are players given a bye. Fewest byes first, then the
fewest smaller tables.
"""

from __future__ import annotations

import msgspec


class TablePlan(msgspec.Struct, frozen=True, kw_only=True):
    """Table sizes for one round (largest first) and the number of byes."""

    sizes: tuple[int, ...]
    byes: int


def check_size(size: int, min_seats: int, max_seats: int) -> None:
    """Refuse a table size the game does not allow."""
    if not min_seats <= size <= max_seats:
        raise ValueError(f"table size {size} is outside the game's {min_seats}-{max_seats} seats")


def plan_tables(players: int, size: int, min_seats: int, max_seats: int) -> TablePlan:
    """The plan with the fewest byes, then the fewest tables one seat smaller than ``size``."""
    check_size(size, min_seats, max_seats)
    smaller_allowed = size - 1 >= min_seats
    # ``size`` tables of size-1 seat as many as size-1 full tables, so fewer than ``size`` small
    # tables always suffice when any do.
    most_small = size - 1 if smaller_allowed else 0
    for byes in range(players + 1):
        seated = players - byes
        for small in range(most_small + 1):
            full_seats = seated - small * (size - 1)
            if full_seats < 0:
                break
            if full_seats % size == 0:
                return TablePlan(sizes=(size,) * (full_seats // size) + (size - 1,) * small, byes=byes)
    return TablePlan(sizes=(), byes=players)  # unreachable: zero seated always fits
