"""Standings: points by place plus stated, configurable tie-breaks.

Tie-breaks, compared in the order the organiser lists them (all "more is better"):

- ``points``: tournament points (places and byes);
- ``opponents_points``: the sum, over every table a player sat at, of the current points of the others
  at it (Buchholz for multi-seat tables: who you beat matters);
- ``game_score``: the sum of the player's in-game scores (money, wealth, florins) over their tables;
- ``wins``: tables won (first place, shared or not);
- ``progress``: single elimination only, how far a player got: rounds survived (a bye counts), then
  the place at the last table (the default first tie-break of that format).

Players equal on every tie-break share a rank.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import msgspec

from domain.tournament.history import Player
from domain.tournament.points import PointsByPlace, table_points

TIE_BREAKS = ("points", "opponents_points", "game_score", "wins", "progress")
DEFAULT_TIE_BREAKS = ("points", "opponents_points", "game_score")


class TableResult(msgspec.Struct, frozen=True, kw_only=True):
    """One finished table: players first to last, their in-game scores (same order), shared winners."""

    ranking: tuple[Player, ...]
    scores: tuple[int, ...]
    winners: tuple[Player, ...]
    final_hash: str = ""
    """The game's last chain hash (its export verifies against it)."""
    places: tuple[int, ...] = ()
    """Each ranking position's place, shared on a tie (``TableFinished.places``; empty: the old rule)."""

    def place_of(self) -> tuple[int, ...]:
        """Each ranking position's place: as recorded, or (results recorded before places were) the
        winners sharing first place and the others in order."""
        if self.places:
            return self.places
        return tuple(0 if p in self.winners else i for i, p in enumerate(self.ranking))


class StandingRow(msgspec.Struct, frozen=True, kw_only=True):
    """One line of the standings: the rank (shared when every tie-break is equal) and each value."""

    rank: int
    player: Player
    values: tuple[int, ...]
    """One value per tie-break, in the tournament's tie-break order."""
    tables: int
    byes: int


def check_tie_breaks(names: Sequence[str]) -> None:
    unknown = [n for n in names if n not in TIE_BREAKS]
    if unknown or not names:
        raise ValueError(f"unknown tie-break(s) {unknown}; choose from {', '.join(TIE_BREAKS)}")


class _Tally:
    __slots__ = ("byes", "game_score", "opponents", "points", "tables", "wins")

    def __init__(self) -> None:
        self.points = self.game_score = self.wins = self.tables = self.byes = 0
        self.opponents: list[Player] = []


def _tally(
    players: Iterable[Player], results: Iterable[TableResult], byes: Iterable[Player], points: PointsByPlace
) -> dict[Player, _Tally]:
    tally = {p: _Tally() for p in players}
    for result in results:
        scored = table_points(points, result.ranking, result.place_of())
        for place, player in enumerate(result.ranking):
            t = tally[player]
            t.points += scored[player]
            t.game_score += result.scores[place]
            t.wins += player in result.winners or place == 0
            t.tables += 1
            t.opponents.extend(p for p in result.ranking if p != player)
    for player in byes:
        tally[player].points += points.bye
        tally[player].byes += 1
    return tally


def _value(name: str, player: Player, tally: dict[Player, _Tally], progress: Mapping[Player, int]) -> int:
    t = tally[player]
    if name == "progress":
        return progress.get(player, 0)
    if name == "points":
        return t.points
    if name == "opponents_points":
        return sum(tally[o].points for o in t.opponents)
    if name == "game_score":
        return t.game_score
    return t.wins


def standings(
    players: Iterable[Player],
    results: Iterable[TableResult],
    byes: Iterable[Player],
    *,
    points: PointsByPlace,
    tie_breaks: Sequence[str] = DEFAULT_TIE_BREAKS,
    progress: Mapping[Player, int] | None = None,
    first: Mapping[Player, int] | None = None,
) -> list[StandingRow]:
    """Every player's row, best first; equal rows keep entrant order and share the rank. ``first``: players
    placed before everyone else by their place there (an elimination's final), sharing the rank where they
    share the place, whatever the tie-breaks say."""
    check_tie_breaks(tie_breaks)
    tally = _tally(players, results, byes, points)
    progress, first = progress or {}, first or {}
    keyed = [(tuple(_value(n, p, tally, progress) for n in tie_breaks), p, t) for p, t in tally.items()]

    def level(values: tuple[int, ...], player: Player) -> tuple[int, tuple[int, ...]]:
        """What two rows must share to share a rank."""
        return (0, (first[player],)) if player in first else (1, tuple(-v for v in values))

    keyed.sort(key=lambda row: (level(row[0], row[1]), tuple(-v for v in row[0]), row[1]))
    rows: list[StandingRow] = []
    for index, (values, player, t) in enumerate(keyed):
        same = rows and level(keyed[index - 1][0], rows[-1].player) == level(values, player)
        rank = rows[-1].rank if same else index + 1
        rows.append(StandingRow(rank=rank, player=player, values=values, tables=t.tables, byes=t.byes))
    return rows
