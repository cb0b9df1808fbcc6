"""The gateway's wire messages (HTTP bodies and WebSocket frames) as msgspec Structs.

The OpenAPI document (``openapi.py``) is generated from these Structs, so the description and the code
cannot drift apart. Views, events and commands are game-specific JSON and appear here as ``Any``.
The WebSocket's frames and close codes are below, in ``wire/`` (``wire/frames.py``, ``wire/close_codes.py``):
the socket and the feeds use them without importing the API; this module names them for the OpenAPI
document and for the API's modules.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from services.gateway.api.players_protocol import BotName, ChatFrame
from services.gateway.wire.errors import Error as Error
from services.gateway.wire.frames import ClientFrame as ClientFrame
from services.gateway.wire.frames import EventFrame, Hello, Pong, ResultFrame, Resync

MAX_BODY = 64 * 1024
"""The largest HTTP request body the gateway reads (bytes); more is refused with 413."""


class CreateGame(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """``POST /api/games``: a game key from ``GET /api/catalog``, a seat count and the game's options."""

    game: str
    seats: int
    options: dict[str, Any] = {}
    bots: dict[str, BotName] = {}
    """Seats (as text, ``"0"``) played by a server-side bot; they get no token."""
    tournament: bool = False
    spectator_delay: int = 0
    """For tournament games: spectators see the game this many events late while it is live."""
    spectator_delay_seconds: float = 0.0
    """For tournament games: spectators see each event this many seconds after it happened."""
    game_id: str | None = None
    names: list[str] = []
    """Player names by seat (shown by the web client); a missing or empty one gets a default."""


class SeatGrant(msgspec.Struct, kw_only=True, omit_defaults=True):
    """One seat of a new game: its secret token (shown once, only its hash is stored) or its bot."""

    seat: int
    token: str | None = None
    bot: str | None = None


class GameCreated(msgspec.Struct, kw_only=True):
    game_id: str
    game: str
    seats: list[SeatGrant]
    watch_url: str


class SubmitCommand(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """``POST /api/games/{id}/commands``: the command exactly as listed by ``/legal``."""

    command: msgspec.Raw
    command_id: str | None = None


class Accepted(msgspec.Struct, kw_only=True):
    """202: the command is on the bus; its outcome is at ``/api/games/{id}/commands/{command_id}``."""

    command_id: str
    status: Literal["pending"] = "pending"


class CommandOutcome(msgspec.Struct, kw_only=True, omit_defaults=True):
    """A command's recorded result: ``applied`` with its event range, or ``rejected`` with the rule."""

    command_id: str
    status: Literal["applied", "rejected", "pending"]
    seq: int = 0
    first_seq: int = 0
    code: str = ""
    error: str = ""
    message: str = ""


class GameSummary(msgspec.Struct, kw_only=True):
    game_id: str
    game: str
    title: str
    seats: int
    status: str
    seq: int
    created_ms: int
    bots: dict[str, str]
    tournament: bool
    names: list[str] = []


class GameList(msgspec.Struct, kw_only=True):
    games: list[GameSummary]
    offset: int
    limit: int
    next_offset: int | None


class GameState(msgspec.Struct, kw_only=True):
    """``GET /api/games/{id}``: the game as the caller (a seat, or a spectator) may see it at ``seq``."""

    game_id: str
    game: str
    title: str
    seats: int
    status: str
    seq: int
    last_seq: int
    viewer: int | None
    to_act: list[int]
    view: Any
    outcome: Any
    bots: dict[str, str]
    tournament: bool
    spectator_delay: int
    names: list[str] = []
    """A name for every seat (chosen at creation, else "Player N" or the bot's)."""
    tournament_id: str | None = None
    """The tournament a tournament's table belongs to (its page: ``/tournaments/<id>``)."""
    seed_commitment: str = ""
    """``sha256(seed)`` from the game's header, hashed into the chain's first link: the seed the game's dice
    and shuffles come from, committed to before the first move (revealed by the event that ends the game)."""


class EventItem(msgspec.Struct, kw_only=True):
    """One event as a viewer may see it (``event`` is ``null`` where it is hidden from that viewer)."""

    seq: int
    hash: str
    """The event's chain hash (``sha256(prev_hash ‖ canonical bytes)``): what a receipt binds the server to."""
    type: str
    seat: int | None
    command_id: str
    ts_ms: int
    event: Any


class EventPage(msgspec.Struct, kw_only=True):
    game_id: str
    events: list[EventItem]
    last_seq: int
    redacted: bool


class CatalogGame(msgspec.Struct, kw_only=True):
    key: str
    title: str
    min_seats: int
    max_seats: int
    option_examples: list[dict[str, Any]]


class Catalog(msgspec.Struct, kw_only=True):
    games: list[CatalogGame]


class Health(msgspec.Struct, kw_only=True):
    status: str
    redis: bool
    games: list[str]


ServerFrame = Hello | EventFrame | Resync | Pong | ResultFrame | ChatFrame
