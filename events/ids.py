"""The one id pattern for games and tournaments, and the names built safely from any id.

An id a client or an organiser picks becomes part of Redis keys (``hm:{g:<id>}:events``: a ``}`` would
move the game to another Cluster slot), rq job ids (rq takes only letters, digits, ``_`` and ``-``) and
file names (``<archive>/<id>.jsonl.gz``: ``../evil`` would leave the folder). So every id accepted from
outside matches :data:`ID_PATTERN`, checked where it comes in (HTTP, CLI, the tournament service, the
archive), and every job id and file name is built here, safe even for an id stored before the check.

A tournament's game is named ``<tournament id>-r<round>-t<table>``: the suffix is always the last
``-r<digits>-t<digits>``, so a tournament id with hyphens of its own parses back unambiguously.
"""

from __future__ import annotations

import hashlib
import re

ID_PATTERN = r"^[a-z0-9][a-z0-9_-]{0,63}\Z"
"""Game and tournament ids: 1 to 64 lower-case letters, digits, ``_`` or ``-``, not starting with ``_``
or ``-`` (lower case only: archive files of ``Ann`` and ``ann`` must not collide on a case-blind disk)."""
MAX_TOURNAMENT_ID = 48
"""A tournament id leaves room for its games' suffix ``-r<round>-t<table>`` within the 64 of a game id."""

_ID = re.compile(ID_PATTERN)
_TOURNAMENT_GAME = re.compile(r"^(?P<tid>.+)-r(?P<round>[1-9][0-9]*)-t(?P<table>[1-9][0-9]*)\Z")
_JOB_SAFE = re.compile(r"^[A-Za-z0-9_-]+\Z")


class BadId(ValueError):
    """An id that does not match :data:`ID_PATTERN`; the message says what an id may be."""


def valid_id(value: str) -> bool:
    return bool(_ID.match(value))


def check_game_id(value: str) -> str:
    """``value`` if it is a valid game id, else :class:`BadId`."""
    if not valid_id(value):
        raise BadId(
            f"a game id is 1 to 64 lower-case letters, digits, _ or - (not first), not {_shown(value)}"
        )
    return value


def check_tournament_id(value: str) -> str:
    """``value`` if it is a valid tournament id (the game id pattern, at most 48 characters)."""
    if not valid_id(value) or len(value) > MAX_TOURNAMENT_ID:
        raise BadId(
            f"a tournament id is 1 to {MAX_TOURNAMENT_ID} lower-case letters, digits, _ or - (not first), "
            f"not {_shown(value)}"
        )
    return value


def tournament_game_id(tournament_id: str, round_number: int, table: int) -> str:
    """The game of table ``table`` (0-based) in round ``round_number`` of a tournament."""
    return f"{tournament_id}-r{round_number}-t{table + 1}"


def parse_tournament_game_id(game_id: str) -> tuple[str, int, int] | None:
    """``(tournament id, round, table index)`` of a tournament game's id, or ``None``."""
    match = _TOURNAMENT_GAME.match(game_id)
    if match is None:
        return None
    return match["tid"], int(match["round"]), int(match["table"]) - 1


def is_tournament_game_id(game_id: str) -> bool:
    """Whether ``game_id`` has the shape of a tournament's game (reserved: only a tournament makes one)."""
    return _TOURNAMENT_GAME.match(game_id) is not None


def job_id(prefix: str, *parts: str | int) -> str:
    """An rq job id ``<prefix>-<part>-…``, each part made safe by :func:`safe_part`."""
    return "-".join([prefix, *(safe_part(str(part)) for part in parts)])


def safe_part(value: str) -> str:
    """``value`` if it is only letters, digits, ``_`` and ``-`` (what rq takes in a job id, and a file
    name that stays in its folder); else ``_`` and the first 32 hex digits of its SHA-256 (an id stored
    before ids were checked: ``a.b``, ``x:y``, ``../evil``). One id keeps one name, and no valid id starts
    with ``_``, so a replaced one never takes a valid id's job or file."""
    if _JOB_SAFE.match(value):
        return value
    return "_" + hashlib.sha256(value.encode()).hexdigest()[:32]


def _shown(value: str) -> str:
    """The refused id for a message, cut short: a client's text is never echoed at length."""
    return repr(value if len(value) <= 80 else value[:80] + "…")
