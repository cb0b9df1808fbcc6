"""Every setting of a tournament checked against its game and format before anything is stored.

A setting that passes here can be played to its end: its clocks are finite seconds, its first round
seats at least one table, every table size the format will deal has points, the game accepts its
options at each of those sizes, every bot entrant names a bot the game has, and the field and its
rounds stay within the stated maximum. What fails is refused with a ``RuleViolation``
(``tournament.<setting>``) whose message says what is allowed; nothing is started.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from typing import Any

from domain.engine import Game, RuleViolation
from domain.text import same_name, unprintable
from domain.tournament.data import FORMATS, ON_TIMEOUT, Entrant, TournamentSettings
from domain.tournament.formats import round_robin_rounds
from domain.tournament.standings import check_tie_breaks
from domain.tournament.tables import check_size, plan_tables

MAX_PLAYERS = 10_000
"""The largest field (issue 42: a 10,000-player Swiss round is benched, `bench_tournament_scale`)."""
MAX_ROUNDS = 100
"""The most rounds, stated or by the format's natural length (a round-robin of a big field at 2 seats)."""
MAX_CLOCK_S = 7 * 24 * 3600.0
"""A clock limit (per move, or in all per seat and game) is at most a week."""
MAX_NAME = 100
"""An entrant's name, in characters."""
MAX_POINTS = 1_000_000
"""Points for a place or a bye, either way."""


def _refuse(code: str, message: str) -> RuleViolation:
    return RuleViolation(f"tournament.{code}", message)


def check_settings(
    settings: TournamentSettings,
    entrants: Sequence[Entrant],
    game: Game[Any, Any, Any, Any],
    bots: Collection[str],
) -> None:
    """Refuse (``RuleViolation``) any setting ``game`` cannot play to an end with these ``entrants``;
    ``bots`` are the names of the game's bots."""
    _check_shape(settings, game)
    _check_clocks(settings)
    _check_entrants(entrants, bots)
    sizes = table_sizes(settings, len(entrants), game.min_seats, game.max_seats)
    _check_rounds(settings, len(entrants))
    _check_points(settings, sizes)
    _check_options(settings, sizes, game)


def _check_shape(settings: TournamentSettings, game: Game[Any, Any, Any, Any]) -> None:
    if settings.format not in FORMATS:
        raise _refuse("format", f"unknown format {settings.format!r}; choose from {', '.join(FORMATS)}")
    if settings.on_timeout not in ON_TIMEOUT:
        raise _refuse("on_timeout", f"on_timeout is one of {', '.join(ON_TIMEOUT)}")
    try:
        check_size(settings.table_size, game.min_seats, game.max_seats)
        check_tie_breaks(settings.tie_breaks)
    except ValueError as error:
        raise _refuse("settings", str(error)) from error
    if settings.format == "elimination" and not 1 <= settings.advance < game.min_seats:
        raise _refuse(
            "advance", f"advance must be 1 to {game.min_seats - 1} so that a table eliminates someone"
        )


def _check_clocks(settings: TournamentSettings) -> None:
    limits = (("move_limit_s", settings.move_limit_s), ("total_limit_s", settings.total_limit_s),
              ("no_show_s", settings.no_show_s))  # fmt: skip
    for name, value in limits:
        if not (math.isfinite(value) and 0 <= value <= MAX_CLOCK_S):
            raise _refuse(
                "clock", f"{name} is seconds from 0 (off) to {MAX_CLOCK_S:.0f} (a week), not {value}"
            )


def _check_entrants(entrants: Sequence[Entrant], bots: Collection[str]) -> None:
    if len(entrants) > MAX_PLAYERS:
        raise _refuse("entrants", f"{len(entrants)} entrants; a tournament has at most {MAX_PLAYERS}")
    names: set[str] = set()
    for entrant in entrants:
        if not 1 <= len(entrant.name) <= MAX_NAME:
            raise _refuse("entrants", f"an entrant's name is 1 to {MAX_NAME} characters")
        bad = unprintable(entrant.name)
        if bad is not None:  # names are shown on pages and in verify's output (domain/text.py)
            raise _refuse(
                "name", f"an entrant's name is printable text: no control or bidi characters ({bad})"
            )
        if same_name(entrant.name) in names:  # Ann and ANN, or é composed or not, would be told apart by none
            raise _refuse(
                "name", f"two entrants are named {entrant.name!r} (names are unique, whatever the case)"
            )
        names.add(same_name(entrant.name))
        if entrant.bot is not None and entrant.bot not in bots:
            shown = entrant.bot[:40]
            raise _refuse("bot", f"unknown bot {shown!r}; this game's bots are {', '.join(sorted(bots))}")


def table_sizes(
    settings: TournamentSettings, players: int, min_seats: int, max_seats: int
) -> tuple[int, ...]:
    """The table sizes the format will deal for this field, largest first; refuses a field whose first
    round would seat nobody (everyone on a bye, round after round: it would never end)."""
    size = settings.table_size
    if players < min_seats:
        raise _refuse("entrants", f"{players} entrants cannot fill one table of {min_seats}")
    if settings.format == "elimination":  # rounds shrink the field: any size down to the game's least
        return tuple(range(size, min_seats - 1, -1))
    plan = plan_tables(players, size, min_seats, max_seats)
    if not plan.sizes:
        smallest = size - 1 if size - 1 >= min_seats else size
        raise _refuse(
            "table_size",
            f"{players} entrants cannot fill a table of {smallest} or more: choose a table size of at most "
            f"{players}",
        )
    return tuple(sorted(set(plan.sizes), reverse=True))


def _check_rounds(settings: TournamentSettings, players: int) -> None:
    if not 0 <= settings.rounds <= MAX_ROUNDS:
        raise _refuse(
            "rounds", f"rounds is 0 (the format's natural length) to {MAX_ROUNDS}, not {settings.rounds}"
        )
    if settings.rounds == 0 and settings.format == "round_robin":
        natural = round_robin_rounds(players, settings.table_size)
        if natural > MAX_ROUNDS:
            raise _refuse(
                "rounds",
                f"a round-robin of {players} at tables of {settings.table_size} takes {natural} rounds; "
                f"at most {MAX_ROUNDS}: set rounds, or use Swiss",
            )


def _check_points(settings: TournamentSettings, sizes: Sequence[int]) -> None:
    by_size = settings.points.by_size
    for size in sizes:
        row = by_size.get(str(size))
        if row is None or len(row) != size:
            raise _refuse("points", f"points by place for tables of {size} are missing (a list of {size})")
    values = [settings.points.bye, *(v for size in sizes for v in by_size[str(size)])]
    if any(abs(v) > MAX_POINTS for v in values):
        raise _refuse("points", f"points for a place or a bye are -{MAX_POINTS} to {MAX_POINTS}")


def _check_options(
    settings: TournamentSettings, sizes: Sequence[int], game: Game[Any, Any, Any, Any]
) -> None:
    """The game's own set-up judges the options, at every size a table will have (its message names
    what the game knows)."""
    for size in sizes:
        try:
            game.setup(size, dict(settings.options), bytes(32))
        except RuleViolation as exc:
            raise _refuse("options", f"options refused by {game.key}: {exc.message}") from exc
        except Exception as exc:  # ill-typed options a game's set-up did not foresee: a refusal too
            raise _refuse("options", f"options refused by {game.key}: {type(exc).__name__}") from exc
