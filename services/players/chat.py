"""Table chat in Redis: one stream per game, ``hm:{g:<id>}:chat``, under the game's hash tag but apart from
its events, so that chat is kept with the game for the record and never enters the hash chain of moves.

Each entry holds the channel (``players`` or ``spectators``), the author's name, the author's seat (players'
channel only), the text and the time. Who may read which channel is ``domain.players.rules.chat_reaches``.
"""

from __future__ import annotations

import time
from typing import Any

from events import keys
from services.gateway.api.players_protocol import ChatFrame

KEEP = 5_000
"""Messages kept per game (the oldest beyond are trimmed)."""
HISTORY = 200
"""Messages a client is given when it opens the game."""


async def append(
    redis: Any, game_id: str, channel: str, author: str, seat: int | None, text: str
) -> ChatFrame:
    """Record a message; returns it as sent to the viewers it may reach."""
    ts_ms = int(time.time() * 1000)
    fields = {
        "channel": channel,
        "author": author,
        "seat": "" if seat is None else seat,
        "text": text,
        "ts_ms": ts_ms,
    }
    entry_id = await redis.xadd(keys.chat(game_id), fields, maxlen=KEEP, approximate=True)
    return ChatFrame(id=entry_id.decode(), channel=channel, author=author, seat=seat, text=text, ts_ms=ts_ms)


async def recent(redis: Any, game_id: str, count: int = HISTORY) -> list[ChatFrame]:
    """The last ``count`` messages, oldest first."""
    entries = await redis.xrevrange(keys.chat(game_id), count=count)
    return [_frame(entry_id, fields) for entry_id, fields in reversed(entries)]


def stored_message(entry_id: bytes, raw: dict[bytes, bytes]) -> dict[str, Any]:
    """A stored message's fields, named as its frame (``ChatFrame``) and its export line (``ChatLine``) name
    them."""
    field = {k.decode(): v.decode("utf-8", "replace") for k, v in raw.items()}
    seat, ts_ms = field.get("seat", ""), field.get("ts_ms", "")
    return {
        "id": entry_id.decode(),
        "channel": field.get("channel", "players"),
        "author": field.get("author", "?"),
        "seat": int(seat) if seat.isdigit() else None,
        "text": field.get("text", ""),
        "ts_ms": int(ts_ms) if ts_ms.isdigit() else 0,
    }


def _frame(entry_id: bytes, raw: dict[bytes, bytes]) -> ChatFrame:
    return ChatFrame(**stored_message(entry_id, raw))
