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


def people_digests(client: Any, tournament_id: str) -> dict[bytes, bytes]:
    """Every person's key digest (player index as text -> digest): read once for a whole round."""
    digests: dict[bytes, bytes] = client.hgetall(people_key(tournament_id))
    return digests


def seat_tokens(digests: dict[bytes, bytes], players: Sequence[int]) -> dict[str, int]:
    """One table's seat tokens (digest -> seat) of the people among ``players``."""
    return {
        digests[str(player).encode()].decode(): seat
        for seat, player in enumerate(players)
        if str(player).encode() in digests
    }


def queue_seat_people(pipe: Any, digests: dict[bytes, bytes], game_id: str, players: Sequence[int]) -> None:
    """Give the people at this table their seats' tokens in the gateway's seat tokens hash
    (``services/gateway/access/auth.py``), queued on a pipeline, from the digests read once for the round
    (``people_digests``); idempotent: a round reopened sets the same."""
    mapping = seat_tokens(digests, players)
    if mapping:
        pipe.hset(keys.game_key(game_id, "tokens"), mapping=mapping)
