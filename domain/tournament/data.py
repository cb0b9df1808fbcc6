"""A tournament's settings and entrants, as the organiser states them."""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from domain.tournament.points import PointsByPlace
from domain.tournament.standings import DEFAULT_TIE_BREAKS

Format = Literal["swiss", "round_robin", "elimination"]
FORMATS: tuple[Format, ...] = ("swiss", "round_robin", "elimination")
OnTimeout = Literal["default_move", "forfeit"]
ON_TIMEOUT: tuple[OnTimeout, ...] = ("default_move", "forfeit")


class TournamentSettings(msgspec.Struct, frozen=True, kw_only=True):
    """What the organiser chose. ``rounds`` = 0 means the format's natural length (round-robin: until
    everyone met everyone as far as tables allow; elimination: until one table is left)."""

    game: str
    format: Format = "swiss"
    rounds: int = 0
    table_size: int = 4
    points: PointsByPlace = msgspec.field(default_factory=PointsByPlace)
    tie_breaks: tuple[str, ...] = DEFAULT_TIE_BREAKS
    advance: int = 1
    """Elimination: how many of each table go on to the next round."""
    options: dict[str, Any] = msgspec.field(default_factory=dict)
    """The game's options for every table."""
    move_limit_s: float = 0.0
    """Per-move clock: a seat silent this long plays its default move (``domain/clock.py``); 0 = off."""
    total_limit_s: float = 0.0
    """Total clock per seat and game: a seat whose thinking time adds up to this plays its default move
    on each of its turns from then on, at once; 0 = off."""
    on_timeout: OnTimeout = "default_move"
    """``default_move``: a timed-out seat plays its default move and the game's result stands.
    ``forfeit``: a seat timed out even once is forfeited: the clock plays its default moves from then on,
    at once, and the table ranks it below every seat that was never timed out (``forfeit_result``)."""
    no_show_s: float = 0.0
    """No-show deadline, with or without a move clock: a seat that never made a move of its own and has
    been to act this long in all is a no-show. The clock plays its moves from then on, at once, and the
    table forfeits it (ranked below everyone who played) and does not rate it; 0 = off."""

    @property
    def clocked(self) -> bool:
        """Whether the server watches the tables' time (a clock or a no-show deadline)."""
        return self.move_limit_s > 0 or self.total_limit_s > 0 or self.no_show_s > 0

    def clock(self) -> dict[str, Any]:
        """The time settings by name, as a tournament's description shows them."""
        names = ("move_limit_s", "total_limit_s", "on_timeout", "no_show_s")
        return {name: getattr(self, name) for name in names}


def default_tie_breaks(format: Format) -> tuple[str, ...]:
    """Elimination ranks by how far a player got first; the other formats by points."""
    return ("progress", *DEFAULT_TIE_BREAKS) if format == "elimination" else DEFAULT_TIE_BREAKS


class Entrant(msgspec.Struct, frozen=True, kw_only=True):
    """A player: a person (plays with a seat token) or a server bot (``bot`` names its policy)."""

    name: str
    bot: str | None = None
