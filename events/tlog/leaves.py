"""What one leaf of the service's log says. A leaf's data is its canonical JSON (keys sorted, no spaces);
the tree hashes that data (``merkle.leaf_hash``).

- ``Start``: a chain (a game or a tournament) exists, with its genesis hash (the hash of its header, which
  holds the seed commitment) and the seed commitment in plain sight.
- ``Head``: a chain's event ``seq`` has hash ``hash``. Every earlier event is bound by it through the hash
  chain; ``finished`` when that event ends the game (its seed is revealed).
- ``Commands``: the digest of a finished game's command records (who sent each command, its origin, its
  result), which sit beside the hash chain; written when the game is archived.
- ``Rating``: an account's rating changed after a game.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import Literal

import msgspec

Stream = Literal["game", "tournament"]


class Start(msgspec.Struct, frozen=True, tag="start", tag_field="kind"):
    stream: Stream
    id: str
    genesis: str
    seed_commitment: str


class Head(msgspec.Struct, frozen=True, tag="head", tag_field="kind"):
    stream: Stream
    id: str
    seq: int
    hash: str
    finished: bool = False


class Sealed(msgspec.Struct, frozen=True, tag="sealed", tag_field="kind"):
    """A live game's head: event ``seq``'s seal (``events/tlog/seal.py``), not its hash, which with the
    redacted events viewers are sent would give away what is hidden from them. Checked once the game's end
    reveals its seed."""

    stream: Stream
    id: str
    seq: int
    seal: str


class Commands(msgspec.Struct, frozen=True, tag="commands", tag_field="kind"):
    stream: Stream
    id: str
    last_seq: int
    count: int
    digest: str


class Rating(msgspec.Struct, frozen=True, tag="rating", tag_field="kind", omit_defaults=True):
    """``rules``: the account ratings' rules version it was made under (``domain/players/rating_rules.py``),
    ``weight`` the part of the full update it made and ``seat``; each left out at its default, so that a version 1
    leaf (which has neither) encodes to the very data the log hashed."""

    account: str
    game_id: str
    mu: float
    sigma: float
    place: int
    rules: int = 1
    weight: float = 1.0
    seat: int | None = None
    """The account's seat in the game (version 2 on), so that the game's archive places it."""


Leaf = Start | Head | Sealed | Commands | Rating

_encoder = msgspec.json.Encoder(order="sorted")
_decoder: msgspec.json.Decoder[Leaf] = msgspec.json.Decoder(Leaf)


def encode(leaf: Leaf) -> bytes:
    return _encoder.encode(leaf)


def decode(data: bytes) -> Leaf:
    """A leaf from its data; raises ``msgspec.DecodeError``/``ValidationError`` for anything else."""
    return _decoder.decode(data)


def commands_digest(lines: Iterable[bytes]) -> str:
    """The digest a ``Commands`` leaf carries: SHA-256 over the export's command lines, each ended by a newline."""
    digest = hashlib.sha256()
    for line in lines:
        digest.update(line.rstrip(b"\n") + b"\n")
    return digest.hexdigest()


def stream_of(game: str) -> Stream:
    """A chain's stream from its header's ``game``: tournaments' headers say ``tournament:<game>``."""
    return "tournament" if game.startswith("tournament:") else "game"
