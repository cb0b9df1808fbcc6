"""The command ids the server keeps for itself, and the clock's own (pure: no Redis, for the offline verifier).

A command id is scoped to its sender in the results hash (``keys.result_field``), but the event log keeps
only the id: ``timeout-…`` there means "the clock played this seat's default move" (``events/clocks.py``
counts it as a timeout, a no-show, a forfeit). So the ids the server makes (the clock's ``timeout-``, the
bots' ``bot-``, the set-up's ``setup-``) are refused from every client (HTTP, WebSocket, ``harbormaster
send``), and ``verify`` accepts a ``timeout-`` id only from the clock, keyed and played as the clock would.
"""

from __future__ import annotations

import hashlib
import hmac
import re

RESERVED_PREFIXES = ("timeout-", "bot-", "setup-", "clock-")
"""The server's own ids: its clock's timeouts, its bots' moves, a game's set-up, and what the clock does to
a seat after its timeout (``clock-``: ``domain/seat_control.TimeOutSeat``)."""
SEAT_CLOCK_PREFIX = "clock-"
TIMEOUT_PREFIX = "timeout-"
TAG_HEX = 20
"""Hex digits of the HMAC tag in a timeout's id."""

_TIMEOUT = re.compile(r"^timeout-(?P<seq>[0-9]{1,18})-(?P<seat>[0-9]{1,3})-(?P<tag>[0-9a-f]{20})\Z")


def reserved_prefix(command_id: str) -> str | None:
    """The reserved prefix ``command_id`` starts with (in any case), or ``None`` for a client's own id."""
    lowered = command_id.lower()
    return next((prefix for prefix in RESERVED_PREFIXES if lowered.startswith(prefix)), None)


def reserved_message(prefix: str) -> str:
    """Why a client's id with ``prefix`` is refused, naming the rule."""
    return (
        f"command ids starting with {prefix!r} are reserved for the server "
        f"({', '.join(RESERVED_PREFIXES)}: its clock, its bots and a game's set-up); choose another id"
    )


def is_timeout_id(command_id: str) -> bool:
    """Whether the log counts a command under this id as a timeout of the clock (``seat_clocks``)."""
    return command_id.startswith(TIMEOUT_PREFIX)


def timeout_command_id(seed: bytes, seq: int, seat: int) -> str:
    """The id of the timeout of ``seat`` at ``seq``: the same for every claim (so it is applied once), and
    keyed with the game's secret seed, so that nobody can know it in advance (as bots' ids are). Anyone can
    check the tag once the game is over and its seed revealed; nobody before."""
    return f"{TIMEOUT_PREFIX}{seq}-{seat}-{timeout_tag(seed, seq, seat)}"


def timeout_tag(seed: bytes, seq: int, seat: int) -> str:
    digest = hmac.new(seed, b"timeout-command-id:%d:%d" % (seq, seat), hashlib.sha256).hexdigest()
    return digest[:TAG_HEX]


def seat_clock_id(seq: int, seat: int) -> str:
    """The id of the clock's ``TimeOutSeat`` for ``seat`` timed out at ``seq``: one per timeout (a second
    claim is a duplicate). Not keyed: it plays no move, and ``verify`` checks its origin instead."""
    return f"{SEAT_CLOCK_PREFIX}{seq}-{seat}"


def is_seat_clock_id(command_id: str) -> bool:
    return command_id.startswith(SEAT_CLOCK_PREFIX)


def parse_timeout_id(command_id: str) -> tuple[int, int, str] | None:
    """``(seq, seat, tag)`` of a timeout's id as the clock makes it, or ``None`` for any other shape."""
    match = _TIMEOUT.match(command_id)
    if match is None:
        return None
    return int(match["seq"]), int(match["seat"]), match["tag"]
