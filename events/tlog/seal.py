"""Seals: what the service shows of a live game's chain instead of its hashes.

A chain hash covers every byte of an event, hidden parts included (Manila's dealt shares, East India
Companies' face-down ships). Shown with the redacted events a spectator is sent, it can be searched: a
few thousand guesses of the hidden part give the hash, so the guess is the secret. While a game is live,
the log, the frames and the receipts therefore carry ``HMAC-SHA256(seed, label ‖ game ‖ seq ‖ hash)``, keyed
with the game's secret seed: nobody without the seed learns anything from it, and the server is bound by
it all the same, since the seed is committed in the game's first link (``seed_commitment``) and revealed
by the event that ends the game. From then on anyone recomputes every seal from the export and finds
the first event whose history differs from what was sealed.
"""

from __future__ import annotations

import hashlib
import hmac

LABEL = b"harbormaster/seal/v1\n"


def seal(seed: bytes, game_id: str, seq: int, chain_hash: str) -> str:
    """The seal of event ``seq`` (chain hash ``chain_hash``) of game ``game_id``, keyed with its seed."""
    message = LABEL + f"{game_id}\n{seq}\n{chain_hash}".encode()
    return hmac.new(seed, message, hashlib.sha256).hexdigest()


def seal_matches(seed: bytes, game_id: str, seq: int, chain_hash: str, sealed: str) -> bool:
    return hmac.compare_digest(seal(seed, game_id, seq, chain_hash), sealed)
