"""The tournament folded from its events."""

from __future__ import annotations

from typing import Literal

import msgspec

from domain.tournament.data import Entrant, TournamentSettings
from domain.tournament.history import Player, RoundPairing
from domain.tournament.ratings import Rating
from domain.tournament.standings import TableResult

Status = Literal["created", "running", "paused", "finished", "cancelled"]


class PlayedRound(msgspec.Struct, frozen=True, kw_only=True):
    """A paired round, its games and the results recorded so far (``None``: table still playing)."""

    number: int
    pairing: RoundPairing
    games: tuple[str, ...]
    results: tuple[TableResult | None, ...]
    closed: bool = False

    def complete(self) -> bool:
        return all(r is not None for r in self.results)


class State(msgspec.Struct, frozen=True, kw_only=True):
    tournament_id: str
    settings: TournamentSettings
    entrants: tuple[Entrant, ...]
    min_seats: int
    max_seats: int
    pairing_seed: bytes
    rules: int = 1
    """The pairing rules version, from ``TournamentCreated``."""
    status: Status = "created"
    rounds: tuple[PlayedRound, ...] = ()
    ratings: tuple[Rating, ...] = ()
    """One per entrant, in this tournament's game."""
    winners: tuple[Player, ...] = ()
    withdrawn: tuple[Player, ...] = ()
    """Players the organiser withdrew, in the order they were: not paired again."""
    seeds: tuple[float, ...] = ()
    """Each entrant's seed from ``TournamentStarted`` (``seeds.py``); empty: not seeded."""

    @property
    def players(self) -> range:
        return range(len(self.entrants))

    def active(self) -> list[Player]:
        """The players still paired: every entrant not withdrawn."""
        gone = set(self.withdrawn)
        return [p for p in self.players if p not in gone]

    def current(self) -> PlayedRound | None:
        return self.rounds[-1] if self.rounds else None

    def results(self) -> list[TableResult]:
        return [r for rnd in self.rounds for r in rnd.results if r is not None]

    def byes(self) -> list[Player]:
        return [p for rnd in self.rounds for p in rnd.pairing.byes]
