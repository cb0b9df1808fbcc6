"""What earlier rounds tell the pairing: who met whom, who sat where, who had a bye."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

import msgspec

Player = int
"""An entrant's index in the tournament (``0 … players-1``)."""

Table = tuple[Player, ...]
"""One table's players in seat order (the first is seat 0, who starts)."""


class RoundPairing(msgspec.Struct, frozen=True, kw_only=True):
    """One round: its tables (players in seat order) and the players given a bye."""

    tables: tuple[Table, ...]
    byes: tuple[Player, ...] = ()

    def seated(self) -> list[Player]:
        return [p for table in self.tables for p in table]


class History:
    """Meetings, seat positions and byes so far, counted for fast look-ups while pairing."""

    __slots__ = ("byes", "meetings", "seats")

    def __init__(self, rounds: Iterable[RoundPairing] = ()) -> None:
        self.meetings: dict[Player, Counter[Player]] = {}
        self.seats: dict[Player, Counter[int]] = {}
        self.byes: Counter[Player] = Counter()
        for pairing in rounds:
            self.add(pairing)

    def add(self, pairing: RoundPairing) -> None:
        for table in pairing.tables:
            for seat, player in enumerate(table):
                self.seats.setdefault(player, Counter())[seat] += 1
                met = self.meetings.setdefault(player, Counter())
                for other in table:
                    if other != player:
                        met[other] += 1
        self.byes.update(pairing.byes)

    def met(self, a: Player, b: Player) -> int:
        """How often ``a`` and ``b`` sat at one table."""
        counts = self.meetings.get(a)
        return counts[b] if counts else 0

    def conflicts(self, player: Player, others: Sequence[Player]) -> int:
        """Earlier meetings of ``player`` with each of ``others``, summed."""
        counts = self.meetings.get(player)
        if not counts:
            return 0
        return sum(counts[o] for o in others if o != player)

    def seat_count(self, player: Player, seat: int) -> int:
        counts = self.seats.get(player)
        return counts[seat] if counts else 0


def repeat_pairs(tables: Iterable[Sequence[Player]], history: History) -> int:
    """Pairs at these tables that had met before (each pair counted once per earlier meeting)."""
    total = 0
    for table in tables:
        for i, a in enumerate(table):
            for b in table[i + 1 :]:
                total += history.met(a, b)
    return total
