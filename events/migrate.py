"""Data written before command ids were scoped to their sender, brought up to date (issue 17, finding 1).

Before, a game's results hash was keyed by the bare command id; now by ``keys.result_field`` (``seat0/c1``,
``bot1/bot-4-1``, ``server/setup``). ``scope_result_fields`` renames a game's old fields, so a command sent
before the upgrade and retried after it is still recognised as a repeat. Events are not touched (their
hashes stay valid); the records keep their bytes (an old record reads as ``origin="seat"``).
"""

from __future__ import annotations

import re
from typing import Any

import msgspec
import redis

from events import codec, keys

DONE = keys.MIGRATED_SCOPED_FIELDS
"""Set once every game is migrated: ``serve`` then skips the pass."""

_OLD_BOT_ID = re.compile(r"^bot-\d+-(\d+)$")


def old_field_origin(command_id: str, seat: int | None, at_seq: int, bots: set[str]) -> str:
    """Who sent a command recorded before origins existed: the set-up was the server's, a
    ``bot-<seq>-<seat>`` on a bot seat the bot's, anything else a player's."""
    if seat is None and at_seq == 0:
        return "server"
    match = _OLD_BOT_ID.match(command_id)
    if match and seat is not None and match.group(1) == str(seat) and str(seat) in bots:
        return "bot"
    return "seat"


def scope_result_fields(client: Any, game_id: str) -> int:
    """Rename the game's unscoped result fields (atomically, retried if the game moves meanwhile); returns
    how many were renamed."""
    results = keys.results(game_id)
    with client.pipeline(transaction=True) as pipe:
        while True:
            try:
                pipe.watch(results)
                renames = _renames(pipe, game_id)
                if renames:
                    pipe.multi()
                    pipe.hset(results, mapping={new: raw for _, new, raw in renames})
                    pipe.hdel(results, *[old for old, _, _ in renames])
                    pipe.execute()
                else:
                    pipe.unwatch()
                return len(renames)
            except redis.WatchError:
                continue


def _renames(pipe: Any, game_id: str) -> list[tuple[bytes, str, bytes]]:
    """``(old field, new field, record)`` for each field without a sender."""
    fields = pipe.hgetall(keys.results(game_id))
    bots = set(msgspec.json.decode(pipe.hget(keys.meta(game_id), "bots") or b"{}", type=dict[str, str]))
    renames = []
    for field, raw in fields.items():
        name = field.decode()
        if "/" in name or name.startswith("@"):
            continue
        record = codec.decode_record(raw)
        origin = old_field_origin(record.command_id, record.seat, record.at_seq, bots)
        renames.append((field, keys.result_field(origin, record.seat, record.command_id), raw))
    return renames


def scope_all(client: Any) -> int:
    """Migrate every game once (``DONE`` marks it); returns how many fields were renamed."""
    if client.exists(DONE):
        return 0
    renamed = sum(scope_result_fields(client, raw.decode()) for raw in client.zrange(keys.GAMES_INDEX, 0, -1))
    client.set(DONE, 1)
    return renamed
