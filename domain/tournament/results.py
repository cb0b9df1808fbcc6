"""A table's result from its game's outcome: the one rule the round job records and ``tournament verify``
re-checks against the game's archive.

Shared places follow each rulebook:

- **Manila** names no tie-break ("Es gewinnt der Spieler, der bei Spielende das größte Vermögen sein Eigen
  nennt"): players of equal wealth share the place (``domain/manila/README.md``, decision 3).
- **El Capitán**: "Sieger ist der Spieler, der das meiste Geld besitzt" and nothing more: equal money
  shares the place (``domain/elcapitan/README.md``, ambiguity 19).
- **East India Companies** breaks every tie ("Bei einem Gleichstand gewinnt der Spieler mit dem höchsten
  Aktienwert …, … Schatzkammer …, … Initiative-Reihenfolge"): its ranking stands as ordered.

Players sharing a place each score that (better) place's points, and ratings see the tie.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from domain.engine import Outcome
from domain.tournament.events import TableFinished
from domain.tournament.forfeit import forfeit_result
from domain.tournament.history import Player

TIES_SHARED: frozenset[str] = frozenset({"manila", "elcapitan"})
"""Games whose rulebook leaves equal scores tied (above); any other game's ranking stands as ordered."""


def shared_places(scores: Sequence[int], forfeited: Sequence[bool], ties_shared: bool) -> tuple[int, ...]:
    """The place (0 = first) of each ranking position: a player level in score with the one above, and
    in the same group (forfeited or not), shares that player's place where ``ties_shared``."""
    places: list[int] = []
    for index, score in enumerate(scores):
        level = index > 0 and score == scores[index - 1] and forfeited[index] == forfeited[index - 1]
        places.append(places[-1] if ties_shared and level else index)
    return tuple(places)


def legacy_places(ranking: Sequence[Player], winners: Collection[Player]) -> tuple[int, ...]:
    """Places of a result recorded before places were: shared first place for the winners, else in order."""
    return tuple(0 if player in winners else index for index, player in enumerate(ranking))


def table_finished(
    number: int,
    table: int,
    seats: Sequence[Player],
    outcome: Outcome,
    final_hash: str,
    *,
    game: str,
    forfeited_seats: Collection[int] = (),
    absent_seats: Collection[int] = (),
) -> TableFinished:
    """The result of table ``table`` of round ``number`` (players ``seats``, in seat order) whose game
    ended with ``outcome``; ``forfeited_seats`` are the seats the clock forfeited (``on_timeout =
    forfeit``), ranked below the others (``forfeit_result``); ``absent_seats`` never made a move of their
    own (every one was the clock's): no-shows, forfeited whatever ``on_timeout`` says, and not rated."""
    ranking = tuple(seats[s] for s in outcome.ranking)
    scores = tuple(outcome.scores[s] for s in outcome.ranking)
    winners = tuple(seats[s] for s in outcome.winners)
    absent = tuple(seats[s] for s in sorted(absent_seats))
    forfeits = tuple(seats[s] for s in sorted(set(forfeited_seats) | set(absent_seats)))
    if forfeits:
        ranking, scores, winners = forfeit_result(ranking, scores, winners, forfeits)
    places = shared_places(scores, [p in forfeits for p in ranking], game in TIES_SHARED)
    if game in TIES_SHARED:  # a forfeit aside, everyone level with the best shares the win
        winners = tuple(
            p for p, place in zip(ranking, places, strict=True) if place == 0 and p not in forfeits
        )
    return TableFinished(round=number, table=table, ranking=ranking, scores=scores, winners=winners,
                         final_hash=final_hash, forfeits=forfeits, places=places, absent=absent)  # fmt: skip
