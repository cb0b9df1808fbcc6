"""Seat tokens and the admin token.

A seat token is a random secret handed out once, when the game is created. Redis keeps only its SHA-256
(``hm:{g:<id>}:tokens``: hex digest -> seat), under the game's hash tag, so a leaked database does not
let anyone play a seat, and a lookup is one ``HGET``.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Iterable, Mapping
from typing import Any

from events import keys


def tokens_key(game_id: str) -> str:
    """The hash of a game's token digests."""
    return keys.game_key(game_id, "tokens")


def digest(token: str) -> str:
    """The stored form of a token."""
    return hashlib.sha256(token.encode()).hexdigest()


def new_secret() -> str:
    """A fresh secret (192 bits, URL-safe) that never starts with ``-``: a person's key is given to the
    command line as ``--key KEY``, where argparse would take a leading ``-`` for an option."""
    while True:
        secret = secrets.token_urlsafe(24)
        if not secret.startswith("-"):
            return secret


def new_tokens(seats: Iterable[int]) -> dict[int, str]:
    """A fresh secret per seat."""
    return {seat: new_secret() for seat in seats}


async def store_tokens(redis: Any, game_id: str, tokens: Mapping[int, str]) -> None:
    """Keep only the digests of the seats' tokens."""
    if tokens:
        await redis.hset(tokens_key(game_id), mapping={digest(t): seat for seat, t in tokens.items()})


async def seat_for(redis: Any, game_id: str, token: str) -> int | None:
    """The seat a token belongs to in this game, or ``None`` for a wrong one (``Gateway.seat_for`` asks, for
    a token it does not remember)."""
    raw = await redis.hget(tokens_key(game_id), digest(token))
    return int(raw) if raw is not None else None


def bearer(authorization: str | None) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header."""
    if not authorization:
        return None
    scheme, _, value = authorization.partition(" ")
    return value.strip() or None if scheme.lower() == "bearer" else None


def admin_ok(expected: str | None, presented: str | None) -> bool:
    """Whether a request may create games: always when no admin token is configured."""
    if expected is None:
        return True
    return presented is not None and hmac.compare_digest(expected.encode(), presented.encode())


def mint_tokens(client: Any, game_id: str, seats: Iterable[int]) -> dict[int, str]:
    """Synchronous: new tokens for these seats of an existing game, their digests stored (for the CLI).

    Replaces nothing: a seat may hold several valid tokens (e.g. one per device).
    """
    tokens = new_tokens(seats)
    if tokens:
        client.hset(tokens_key(game_id), mapping={digest(t): seat for seat, t in tokens.items()})
    return tokens
