"""The tournament's own event stream: every decision an auditor needs to re-check it."""

from __future__ import annotations

from domain.engine import Event
from domain.tournament.data import Entrant, TournamentSettings
from domain.tournament.history import Player, Table


class TournamentCreated(Event, frozen=True, kw_only=True):
    """The settings, the entrants (player ``i`` is ``entrants[i]``) and the public pairing seed."""

    tournament_id: str
    settings: TournamentSettings
    entrants: tuple[Entrant, ...]
    min_seats: int
    max_seats: int
    pairing_seed: bytes
    """Public: it only orders equal scores and seats, so anyone can re-pair every round from the log."""
    rules: int = 1
    """The pairing rules the tournament is decided by (``rules.RULES``; ``pairing_v1`` for version 1, the
    tournaments created before versions existed, whose events lack the field and keep their bytes)."""


class TournamentStarted(Event, frozen=True, kw_only=True, omit_defaults=True):
    """Entries closed; the first round follows."""

    seeds: tuple[float, ...] = ()
    """Each entrant's seed (its account's rating ordinal in the game when the tournament started; the
    default rating's for entrants without an account), read by the pairing; empty: not seeded (left out
    of the payload then, so events recorded before seeds were read and hash as they did)."""


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
    places: tuple[int, ...] = ()
    """The place (0 = first) of each ranking position, shared where the rulebook leaves a tie standing
    (``results.py``); empty in results recorded before places were: the winners share first, then in order."""
    absent: tuple[Player, ...] = ()
    """No-shows: players whose every move was the clock's. Forfeited, and not rated for the game."""
    adjudicated: str = ""
    """Set (the organiser's reason) when the organiser decided the ranking of a game that had not ended:
    points count, ratings do not move, and there is no game outcome to prove it against."""


class RoundClosed(Event, frozen=True, kw_only=True):
    """Every table of the round finished; standings and ratings now include it."""

    round: int


class TournamentPaused(Event, frozen=True, kw_only=True):
    """No new round is paired until resumed (games in play go on)."""


class TournamentResumed(Event, frozen=True, kw_only=True):
    """Pairing goes on."""


class PlayerWithdrawn(Event, frozen=True, kw_only=True):
    """The organiser withdrew a player (dropped, or gone): never paired again; results so far are kept."""

    player: Player
    reason: str = ""


class PlayerReplaced(Event, frozen=True, kw_only=True):
    """The organiser gave a person's place to another person (from their current table on): the player
    number, results and rating stay; the name is the newcomer's, and so is the key (made outside)."""

    player: Player
    name: str


class TournamentCancelled(Event, frozen=True, kw_only=True):
    """The organiser cancelled the tournament: no round is paired or recorded again; standings stay."""

    reason: str = ""


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
    | PlayerWithdrawn
    | PlayerReplaced
    | TournamentCancelled
)
