"""Manila's rules versions (``state.RULES``): a game is set up and decided under the version it started with.

Version 1 is every game recorded before issue 44 (its ``GameStarted`` names no version); version 2 lets a
player take back their moves of the turn (``domain/take_back.py``). Only the first event differs at set-up.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from msgspec.structs import replace

from domain.manila import events as ev
from domain.manila.rules import setup as setup_v1
from domain.manila.rules.common import refuse
from domain.manila.state import RULES


def setup_under(seats: int, options: Mapping[str, Any], seed: bytes, rules: int) -> list[ev.ManilaEvent]:
    """The opening events of a game under rules version ``rules``."""
    if not 1 <= rules <= RULES:
        refuse("unknown_rules", f"rules versions are 1 to {RULES}, not {rules}")
    events = setup_v1(seats, options, seed)
    first = events[0]
    assert isinstance(first, ev.GameStarted)
    return [replace(first, rules=rules), *events[1:]]


def setup(seats: int, options: Mapping[str, Any], seed: bytes) -> list[ev.ManilaEvent]:
    """A new game's opening events, under today's rules."""
    return setup_under(seats, options, seed, RULES)
