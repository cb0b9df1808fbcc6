"""Reading accounts' ratings (written by the fold worker's hook, ``workers/jobs/account_ratings.py``)."""

from __future__ import annotations

from typing import Any

import msgspec

from domain.tournament.ratings import Rating
from workers.jobs.account_ratings import (
    RatingChange,
    board_key,
    decode_rating,
    game_changes_key,
    history_key,
    ratings_key,
    unrated_key,
)

BOARD_LIMIT = 100
HISTORY_SHOWN = 50


class Rated(msgspec.Struct, frozen=True, kw_only=True):
    """An account's rating in one game kind and how many rated games made it."""

    account: str
    rating: Rating
    games: int


async def leaderboard(redis: Any, game: str, limit: int = BOARD_LIMIT) -> list[Rated]:
    """The first ``limit`` accounts of a game's board (established first), best first."""
    accounts = [a.decode() for a in await redis.zrevrange(board_key(game), 0, limit - 1)]
    if not accounts:
        return []
    pipe = redis.pipeline(transaction=False)
    pipe.hmget(ratings_key(game), accounts)
    for account in accounts:
        pipe.llen(history_key(game, account))
    raw, *games = await pipe.execute()
    return [
        Rated(account=a, rating=decode_rating(r), games=int(n))
        for a, r, n in zip(accounts, raw, games, strict=True)
    ]


async def rating_of(redis: Any, game: str, account: str) -> tuple[Rated, list[RatingChange]] | None:
    """An account's rating in a game and its history (newest first), or None if never rated there."""
    pipe = redis.pipeline(transaction=False)
    pipe.hget(ratings_key(game), account)
    pipe.lrange(history_key(game, account), 0, HISTORY_SHOWN - 1)
    pipe.llen(history_key(game, account))
    raw, history, games = await pipe.execute()
    if raw is None:
        return None
    changes = [c for c in map(_change, history) if c is not None]
    return Rated(account=account, rating=decode_rating(raw), games=int(games)), changes


async def game_changes(redis: Any, game: str, game_id: str) -> tuple[dict[str, RatingChange], str | None]:
    """One game's changes by account, and why it rated nobody (``None``: not decided so, or not yet)."""
    pipe = redis.pipeline(transaction=False)
    pipe.hgetall(game_changes_key(game, game_id))
    pipe.hget(unrated_key(game), game_id)
    raw, unrated = await pipe.execute()
    decoded = {k.decode(errors="replace"): _change(v) for k, v in raw.items()}
    changes = {account: c for account, c in decoded.items() if c is not None}
    return changes, unrated.decode(errors="replace") if unrated is not None else None


def _change(raw: bytes) -> RatingChange | None:
    """A stored change, or ``None`` for a record that is not one (skipped: a page never fails on it)."""
    try:
        return msgspec.json.decode(raw, type=RatingChange)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
