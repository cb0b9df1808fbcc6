"""The tournament's own event stream: every decision an auditor needs to re-check it."""

from __future__ import annotations

from domain.engine import Event
from domain.tournament.data import Entrant, Settings
from domain.tournament.history import Player, Table


class TournamentCreated(Event, frozen=True, kw_only=True):
    """The settings, the entrants (player ``i`` is ``entrants[i]``) and the public pairing seed."""

    tournament_id: str
    settings: Settings
    entrants: tuple[Entrant, ...]
    min_seats: int
    max_seats: int
    pairing_seed: bytes
    """Public: it only orders equal scores and seats, so anyone can re-pair every round from the log."""


class TournamentStarted(Event, frozen=True, kw_only=True):
    """Entries closed; the first round follows."""


class RoundPaired(Event, frozen=True, kw_only=True):
    """One round's tables (players in seat order), each with its game's id, and the byes."""

    round: int
    tables: tuple[Table, ...]
    byes: tuple[Player, ...]
    games: tuple[str, ...]


class TableFinished(Event, frozen=True, kw_only=True):
    """One table's game ended: players first to last, their in-game scores, and the game's last hash."""

    round: int
    table: int
    ranking: tuple[Player, ...]
    scores: tuple[int, ...]
    winners: tuple[Player, ...]
    final_hash: str
    forfeits: tuple[Player, ...] = ()
    """Players forfeited by the clock (``on_timeout = forfeit``): already ranked below the others."""


class RoundClosed(Event, frozen=True, kw_only=True):
    """Every table of the round finished; standings and ratings now include it."""

    round: int


class TournamentPaused(Event, frozen=True, kw_only=True):
    """No new round is paired until resumed (games in play go on)."""


class TournamentResumed(Event, frozen=True, kw_only=True):
    """Pairing goes on."""


class TournamentFinished(Event, frozen=True, kw_only=True):
    """The last round closed; ``winners`` share first place in the final standings."""

    winners: tuple[Player, ...]


TournamentEvent = (
    TournamentCreated
    | TournamentStarted
    | RoundPaired
    | TableFinished
    | RoundClosed
    | TournamentPaused
    | TournamentResumed
    | TournamentFinished
)
