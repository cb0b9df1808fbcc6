"""A trimmed game's events for its feed, read back from the game's archive file (``services/archive.py``)."""

from __future__ import annotations

import structlog

from events.archived import archived_envelopes
from events.envelope import Envelope
from events.errors import UnknownGame
from events.store import GameMeta

log = structlog.get_logger("fanout")


def archived_events(meta: GameMeta) -> list[Envelope]:
    """A trimmed game's events from its archive file (read off the event loop), which must end at the
    position Redis kept; a file missing or cut short makes the game unknown here, never a 500."""
    try:
        envelopes = list(archived_envelopes(meta.header, meta.archive))
    except (OSError, ValueError, KeyError) as exc:
        log.error("archive_unreadable", game_id=meta.header.game_id, file=meta.archive, error=str(exc))
        raise UnknownGame(f"{meta.header.game_id}: its archive cannot be read") from exc
    last = (envelopes[-1].seq, envelopes[-1].hash) if envelopes else (0, "")
    if last != (meta.last_seq, meta.last_hash):
        log.error("archive_short", game_id=meta.header.game_id, file=meta.archive, reaches=last[0])
        raise UnknownGame(f"{meta.header.game_id}: its archive does not reach seq {meta.last_seq}")
    return envelopes
