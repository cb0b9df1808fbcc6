"""A tournament's seeds when it starts: each entrant tied to an account (``POST /api/tournaments/{id}/
account``) is seeded by that account's rating ordinal in the tournament's game; the others, and accounts
never rated in that game, by the default rating's. No entrant tied to an account: no seeding at all, so
such tournaments pair exactly as they did before seeds.

The seeds are written into ``TournamentStarted`` (``domain/tournament/seeds.py``): the pairing reads them
from the tournament's own stream, and ``tournament verify`` re-decides every round from the export alone.
"""

from __future__ import annotations

from typing import Any

from domain.tournament import State
from domain.tournament.ratings import Rating
from workers.jobs.account_ratings import decode_rating, ratings_key, tournament_accounts_key

SEED_DECIMALS = 3
"""Seeds are recorded rounded: readable in the export, and finer than any rating difference that matters."""


def account_seeds(client: Any, state: State) -> tuple[float, ...]:
    """One seed per entrant, or none when no entrant is tied to an account."""
    tied = {
        int(k): v.decode() for k, v in client.hgetall(tournament_accounts_key(state.tournament_id)).items()
    }
    if not tied:
        return ()
    players = sorted(p for p in tied if 0 <= p < len(state.entrants))
    raw = client.hmget(ratings_key(state.settings.game), [tied[p] for p in players]) if players else []
    rated = {p: decode_rating(r) for p, r in zip(players, raw, strict=True) if r is not None}
    default = Rating().ordinal
    return tuple(round(rated[p].ordinal if p in rated else default, SEED_DECIMALS) for p in state.players)
