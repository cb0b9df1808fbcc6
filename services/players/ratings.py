"""Reading accounts' ratings (written by the fold worker's hook, ``workers/jobs/account_ratings.py``)."""

from __future__ import annotations

from typing import Any

import msgspec

from domain.tournament.ratings import Rating
from workers.jobs.account_ratings import (
    RatingChange,
    board_key,
    decode_rating,
    history_key,
    ratings_key,
)

BOARD_LIMIT = 100
HISTORY_SHOWN = 50


async def leaderboard(redis: Any, game: str, limit: int = BOARD_LIMIT) -> list[tuple[str, Rating]]:
    """The best ``limit`` accounts of a game by ordinal, best first."""
    accounts = [a.decode() for a in await redis.zrevrange(board_key(game), 0, limit - 1)]
    if not accounts:
        return []
    raw = await redis.hmget(ratings_key(game), accounts)
    return [(account, decode_rating(r)) for account, r in zip(accounts, raw, strict=True)]


async def rating_of(redis: Any, game: str, account: str) -> tuple[Rating, list[RatingChange]] | None:
    """An account's rating in a game and its history (newest first), or None if never rated there."""
    pipe = redis.pipeline(transaction=False)
    pipe.hget(ratings_key(game), account)
    pipe.lrange(history_key(game, account), 0, HISTORY_SHOWN - 1)
    raw, history = await pipe.execute()
    if raw is None:
        return None
    return decode_rating(raw), [msgspec.json.decode(h, type=RatingChange) for h in history]
