"""Version 2 of single elimination's rules, kept for the tournaments created under it (``rules`` 2), so that
they re-decide and verify exactly as they were decided. A new tournament is created under version 3
(``elimination``).

What version 3 changed, and why none of it is applied here (issue 42):

- A place shared at a table counted by its position in the game's order: a tie in the final crowned the
  first by seat, and the standings ranked the tied players 100 and 99 apart (``progress``).
- A withdrawn player who would have gone on left a hole: with too few left for a table the tournament
  ended without a final, and the withdrawn players kept the progress of those who went on.
"""

from __future__ import annotations

from domain.tournament.formats import advancing, round_advance
from domain.tournament.history import Player, RoundPairing
from domain.tournament.seeds import by_seed
from domain.tournament.state import State


def still_in(state: State) -> list[Player]:
    """The players going on, best seeds first (place at their table, then table order)."""
    last = state.current()
    if last is None:
        return by_seed(state.active(), state.seeds)
    going: list[tuple[int, int, Player]] = [(0, -1, p) for p in last.pairing.byes]
    advance = round_advance(last.pairing, state.settings.advance, state.min_seats)
    for index, result in enumerate(last.results):
        assert result is not None
        going.extend((place, index, p) for place, p in enumerate(advancing(result.ranking, advance)))
    gone = set(state.withdrawn)
    return [p for _, _, p in sorted(going) if p not in gone]


def was_final(pairing: RoundPairing, min_seats: int, going_on: int) -> bool:
    """An elimination round was the final: one table and no byes (``round_advance`` leaves enough players
    for a table after any other round; the second test is for rounds paired before it did)."""
    return (len(pairing.tables) <= 1 and not pairing.byes) or going_on < min_seats


def progress(state: State) -> dict[Player, int]:
    """100 per round survived (a bye counts) minus the place at the player's last table."""
    out: dict[Player, int] = {}
    for played in state.rounds:
        for p in played.pairing.byes:
            out[p] = 100 * played.number
        advance = round_advance(played.pairing, state.settings.advance, state.min_seats)
        final = len(played.results) <= 1 and not played.pairing.byes
        for result in played.results:
            if result is None:
                continue
            going = set(advancing(result.ranking, advance))
            for place, p in enumerate(result.ranking):
                survived = played.number + (p in going and not final)
                out[p] = 100 * survived - place
    return out
