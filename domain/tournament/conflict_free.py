"""A split of the field in which nobody meets an earlier opponent, found by a bounded depth-first search.

The fallback when the swap repair and the tabu search (``pairing``) leave repeats in a field too large for
the exact search: those walk from the score-ordered split and can stall a pair or two short of a
repeat-free one (tables of 5 in a field of 40 after four rounds, where each player has met 16 of 39). The
search seats the most constrained player first (fewest fresh opponents left), with the fresh opponents
nearest to it in the score order, and gives up after ``SEARCH_NODES`` steps. Deterministic: the score order
decides every tie.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from domain.tournament.history import History, Player

SEARCH_NODES = 60_000
"""Steps before the search gives up (the repeats it could not remove are then likely unavoidable)."""


class _Search:
    def __init__(self, order: Sequence[Player], history: History, budget: int) -> None:
        self.rank = {p: i for i, p in enumerate(order)}
        self.fresh = {p: frozenset(q for q in order if q != p and not history.met(p, q)) for p in order}
        self.budget = budget
        self.steps = 0

    def out_of_steps(self) -> bool:
        self.steps += 1
        return self.steps > self.budget

    def split(self, left: frozenset[Player], sizes: tuple[int, ...]) -> list[list[Player]] | None:
        """Tables of ``sizes`` from the players ``left``, no two of a table having met; None if none found."""
        if not sizes:
            return []
        smallest = min(sizes)
        choice = {p: self.fresh[p] & left for p in left}
        if any(len(fresh) < smallest - 1 for fresh in choice.values()):
            return None  # someone can no longer be seated among fresh opponents
        anchor = min(left, key=lambda p: (len(choice[p]), self.rank[p]))
        for size in sorted(set(sizes), reverse=True):
            sizes_left = list(sizes)
            sizes_left.remove(size)
            for mates in self._mates(anchor, choice[anchor], size - 1):
                table = [anchor, *mates]
                rest = self.split(left - frozenset(table), tuple(sizes_left))
                if rest is not None:
                    return [table, *rest]
                if self.steps > self.budget:
                    return None
        return None

    def _mates(self, anchor: Player, fresh: frozenset[Player], need: int) -> Iterator[list[Player]]:
        """Groups of ``need`` players fresh to ``anchor`` and to each other, nearest in score order first."""
        candidates = sorted(fresh, key=lambda q: (abs(self.rank[q] - self.rank[anchor]), self.rank[q]))
        yield from self._cliques([], candidates, need)

    def _cliques(self, chosen: list[Player], candidates: list[Player], need: int) -> Iterator[list[Player]]:
        if need == 0:
            yield chosen
            return
        for k, player in enumerate(candidates):
            if self.out_of_steps():
                return
            narrowed = [q for q in candidates[k + 1 :] if q in self.fresh[player]]
            if len(narrowed) >= need - 1:
                yield from self._cliques([*chosen, player], narrowed, need - 1)


def conflict_free_split(
    order: Sequence[Player], sizes: Sequence[int], history: History, budget: int = SEARCH_NODES
) -> list[list[Player]] | None:
    """Tables of ``sizes`` (players in score order within each, tables by their best placed player) with no
    repeated pair, or None when the search found none within ``budget`` steps."""
    search = _Search(order, history, budget)
    tables = search.split(frozenset(order), tuple(sizes))
    if tables is None:
        return None
    placed = [sorted(table, key=search.rank.__getitem__) for table in tables]
    return sorted(placed, key=lambda t: (-len(t), search.rank[t[0]]))
