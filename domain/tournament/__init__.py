"""Tournaments: pairing (Swiss for multi-seat tables, round-robin, single elimination by table), points
by place, standings with stated tie-breaks, and OpenSkill ratings. Pure and deterministic, like a game:
``rules`` decides, ``evolve`` folds the tournament's own event stream.
"""

from __future__ import annotations

from domain.tournament.data import (
    FORMATS,
    ON_TIMEOUT,
    Entrant,
    Format,
    TournamentSettings,
    default_tie_breaks,
)
from domain.tournament.events import (
    PlayerReplaced,
    PlayerWithdrawn,
    RoundClosed,
    RoundPaired,
    TableFinished,
    TournamentCancelled,
    TournamentCreated,
    TournamentEvent,
    TournamentFinished,
    TournamentPaused,
    TournamentResumed,
    TournamentStarted,
)
from domain.tournament.evolve import evolve
from domain.tournament.history import Player, RoundPairing, Table
from domain.tournament.points import PointsByPlace
from domain.tournament.ratings import Rating
from domain.tournament.rules import current_standings, game_id, total_rounds
from domain.tournament.standings import StandingRow, TableResult
from domain.tournament.state import PlayedRound, State
from domain.tournament.table_fold import fold

__all__ = [
    "FORMATS",
    "ON_TIMEOUT",
    "Entrant",
    "Format",
    "PlayedRound",
    "Player",
    "PlayerReplaced",
    "PlayerWithdrawn",
    "PointsByPlace",
    "Rating",
    "RoundClosed",
    "RoundPaired",
    "RoundPairing",
    "StandingRow",
    "State",
    "Table",
    "TableFinished",
    "TableResult",
    "TournamentCancelled",
    "TournamentCreated",
    "TournamentEvent",
    "TournamentFinished",
    "TournamentPaused",
    "TournamentResumed",
    "TournamentSettings",
    "TournamentStarted",
    "current_standings",
    "default_tie_breaks",
    "evolve",
    "fold",
    "game_id",
    "total_rounds",
]
