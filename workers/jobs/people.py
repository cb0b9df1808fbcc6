"""People as tournament entrants: their seats at each table answer to the person's own key.

A person gets one secret key when the tournament is created (shown once). Redis keeps only its SHA-256,
under the tournament (``people`` hash: player index -> digest); when a round opens, that digest is added
to each of the person's games as a seat token (the gateway's ``hm:{g:<id>}:tokens`` hash: digest -> seat,
``services/gateway/access/auth.py``). So the key opens the person's seat at every table of the tournament, and
no plaintext token is stored anywhere.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from events import keys
from events.tournament_store import tournament_key


def people_key(tournament_id: str) -> str:
    """A hash: player index -> SHA-256 hex digest of the person's key."""
    return tournament_key(tournament_id, "people")


def seat_people(client: Any, tournament_id: str, game_id: str, players: Sequence[int]) -> None:
    """Give the people at this table their seats' tokens (idempotent: a round reopened sets the same)."""
    digests: dict[bytes, bytes] = client.hgetall(people_key(tournament_id))
    if not digests:
        return
    mapping = {
        digests[str(player).encode()].decode(): seat
        for seat, player in enumerate(players)
        if str(player).encode() in digests
    }
    if mapping:  # the gateway's seat tokens hash (services/gateway/auth.tokens_key)
        client.hset(keys.game_key(game_id, "tokens"), mapping=mapping)
