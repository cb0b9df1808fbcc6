"""Tournament points by place: configurable per table size, with a default in BGA's 6/5/3/1 style."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import msgspec

DEFAULT_POINTS: Mapping[str, tuple[int, ...]] = {
    # The 4-player curve 6/5/3/1, scaled to each table size: first always 6, last always 1, the places
    # between read off the 4-player curve at the same relative position (rounded down).
    "2": (6, 1),
    "3": (6, 4, 1),
    "4": (6, 5, 3, 1),
    "5": (6, 5, 4, 2, 1),
}
DEFAULT_BYE_POINTS = 3
"""About the average place of a 4-player table (6+5+3+1)/4, rounded down; the organiser may change it."""


class PointsByPlace(msgspec.Struct, frozen=True, kw_only=True):
    """Points for each place at a table of each size, and what a bye scores."""

    by_size: dict[str, tuple[int, ...]] = msgspec.field(default_factory=lambda: dict(DEFAULT_POINTS))
    """Table size (as text: JSON and the canonical encoding want text keys) -> points, first to last."""
    bye: int = DEFAULT_BYE_POINTS

    def for_place(self, table_size: int, place: int) -> int:
        """Points for ``place`` (0 = first) at a table of ``table_size``."""
        row = self.by_size.get(str(table_size))
        if row is None or len(row) != table_size:
            raise ValueError(f"no points configured for tables of {table_size}")
        return row[place]


def table_points(points: PointsByPlace, ranking: Sequence[int], places: Sequence[int] = ()) -> dict[int, int]:
    """Points per player of one finished table. ``ranking`` lists players first to last; ``places`` gives
    each position's place (0 = first; empty: in order): players sharing a place, where the rulebook leaves
    a tie standing, each score that place's points (the better of the places they cover)."""
    size = len(ranking)
    at = places or range(size)
    return {player: points.for_place(size, place) for place, player in zip(at, ranking, strict=True)}
