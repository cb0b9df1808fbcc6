"""A table's result when the clock forfeited some of its seats (``on_timeout = forfeit``).

The rule: every seat that was never timed out ranks above every forfeited seat; within each group the
game's own order stands. A forfeited seat never wins: the winners are the game's winners who were not
forfeited, or, if they all were, the first seat who was not (nobody, if every seat was forfeited).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from domain.tournament.history import Player


def forfeit_result(
    ranking: Sequence[Player],
    scores: Sequence[int],
    winners: Collection[Player],
    forfeited: Collection[Player],
) -> tuple[tuple[Player, ...], tuple[int, ...], tuple[Player, ...]]:
    """``(ranking, scores, winners)`` with the forfeited players moved below the others; ``scores`` are
    the in-game scores in ``ranking``'s order, and move with their players."""
    order = sorted(range(len(ranking)), key=lambda i: (ranking[i] in forfeited, i))  # stable: game order
    new_ranking = tuple(ranking[i] for i in order)
    new_scores = tuple(scores[i] for i in order)
    kept = tuple(p for p in new_ranking if p in winners and p not in forfeited)
    if not kept and new_ranking and new_ranking[0] not in forfeited:
        kept = (new_ranking[0],)
    return new_ranking, new_scores, kept
