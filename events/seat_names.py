"""The seats' names of a game: one field (``FIELD``) of its spectating hash, written in one form, each name
cleaned by one rule (issue 46, item 3: the gateway and the tournaments wrote it with different cleaning).

Names are presentation only: the rules never see them, so they live beside the event log, not in it. Every
writer takes its value from ``encoded``: the gateway's creation and a table's start inside their own scripts
(the write is one step of a larger one there), a tournament's seats through ``queue_write``. The gateway
refuses a chosen name that ``cleaned`` would change (``services/gateway/api/names.py``), so a person is told
rather than cut; a tournament's entrants are cut.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

import msgspec

from events import keys

FIELD: Final = "names"
"""The field of the spectating hash that holds the names (JSON, a list of strings by seat)."""
MAX_NAME: Final = 24
"""The characters a name may have."""


def cleaned(name: str) -> str:
    """The one rule: whitespace runs become one space, other characters that do not print are dropped, the
    ends trimmed, at most ``MAX_NAME`` characters."""
    kept = "".join(" " if c.isspace() else c for c in name if c.isprintable() or c.isspace())
    return " ".join(kept.split())[:MAX_NAME].rstrip()


def encoded(names: Sequence[str]) -> bytes:
    """The field's value: the names by seat, each ``cleaned`` (an unnamed seat is ``""``)."""
    return msgspec.json.encode([cleaned(name) for name in names])


def decoded(raw: bytes | str | None) -> list[str]:
    """The stored names (none when the field is missing)."""
    return msgspec.json.decode(raw, type=list[str]) if raw else []


def queue_write(pipe: Any, game_id: str, names: Sequence[str]) -> None:
    """The names on their seats, on a pipeline (or a client: one command)."""
    pipe.hset(keys.spectating(game_id), FIELD, encoded(names))
