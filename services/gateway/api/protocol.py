"""The gateway's wire messages (HTTP bodies and WebSocket frames) as msgspec Structs.

The OpenAPI document (``openapi.py``) is generated from these Structs, so the description and the code
cannot drift apart. Views, events and commands are game-specific JSON and appear here as ``Any``.

WebSocket close codes (every refusal closes with one of these, after the handshake, with a reason):

=======  =================================================================
4400     bad request: ``from`` is not a sequence number, or a frame is not a known message
4401     the token is not a seat token of this game
4403     the ``Origin`` header is not an allowed origin
4404     no such game
4429     this gateway, or this client address, holds as many WebSockets as it may (``docs/limits.md``)
1007     a frame from the client is JSON nested deeper than ``strict.MAX_DEPTH``
1009     a frame from the client is larger than ``MAX_WS_MESSAGE`` bytes (refused from its header, unread)
1008     the client broke its budget: more frames than ``Limits.frames_per_socket`` allows, or answers
         (pongs, results) left unread beyond ``NOTES_LIMIT`` or the socket's write buffer
1013     Redis is unreachable: try again later
1001     the gateway is shutting down
=======  =================================================================
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from services.gateway.api.players_protocol import BotName, ChatFrame

MAX_BODY = 64 * 1024
"""The largest HTTP request body the gateway reads (bytes); more is refused with 413."""
MAX_WS_MESSAGE = 16 * 1024
"""The largest WebSocket frame a client may send (bytes); more closes the socket with 1009."""

CLOSE_BAD_REQUEST = 4400
CLOSE_BAD_TOKEN = 4401
CLOSE_BAD_ORIGIN = 4403
CLOSE_UNKNOWN_GAME = 4404
CLOSE_TOO_MANY = 4429
CLOSE_TOO_BIG = 1009
CLOSE_BAD_DATA = 1007
CLOSE_FLOODED = 1008
CLOSE_UNAVAILABLE = 1013
CLOSE_GOING_AWAY = 1001
MAX_CLOSE_REASON = 123
"""A close frame's reason may be at most 123 bytes of UTF-8 (RFC 6455 5.5: 125 less the code)."""


def close_reason(text: str) -> str:
    """``text`` cut to ``MAX_CLOSE_REASON`` bytes of UTF-8, never inside a character."""
    return text.encode()[:MAX_CLOSE_REASON].decode("utf-8", "ignore")


class Error(msgspec.Struct, kw_only=True):
    """Every 4xx/5xx body: a stable machine-readable ``error`` code and a human ``message``."""

    error: str
    message: str


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


# --- WebSocket frames, gateway -> client ----------------------------------------------------------------


class Hello(msgspec.Struct, kw_only=True, tag="hello", tag_field="type"):
    """First frame: the viewer's seat and view at ``seq`` (the ``from`` asked for, else the latest; the
    latest when ``from`` is past it, as after Redis lost its last seconds: a ``seq`` below ``from`` means
    the events after it that the client holds no longer exist)."""

    game_id: str
    game: str
    viewer: int | None
    seq: int
    hash: str
    """The chain hash of event ``seq`` (empty at 0)."""
    status: str
    view: Any
    to_act: list[int]
    outcome: Any


class EventFrame(msgspec.Struct, kw_only=True, tag="event", tag_field="type"):
    """One per appended event, in order, exactly once: the event as this viewer may see it, the view after."""

    seq: int
    hash: str
    """The event's chain hash: with ``seq``, what the client keeps as proof of what it was shown (receipts)."""
    event_type: str
    seat: int | None
    event: Any
    view: Any
    to_act: list[int]
    outcome: Any
    status: str
    command_id: str = ""
    """The command the event came of: a move's events share it (the web client's replay steps by it)."""


class Resync(msgspec.Struct, kw_only=True, tag="resync", tag_field="type"):
    """Sent instead of the events a client fell too far behind on: a fresh view at ``seq``. Also when Redis
    lost its last seconds: the store's view, at a ``seq`` below the client's last (``docs/reliability.md``);
    the events after it that the client holds no longer exist."""

    seq: int
    hash: str
    """The chain hash of event ``seq``."""
    view: Any
    to_act: list[int]
    outcome: Any
    status: str


class Pong(msgspec.Struct, kw_only=True, tag="pong", tag_field="type"):
    pass


class Ping(msgspec.Struct, kw_only=True, forbid_unknown_fields=True, tag="ping", tag_field="type"):
    """Client -> gateway: a keep-alive; answered with ``pong``."""


class CommandFrame(msgspec.Struct, kw_only=True, forbid_unknown_fields=True, tag="command", tag_field="type"):
    """Client -> gateway, on a seat's socket: a command exactly as listed by ``/legal``, answered with a
    ``result`` frame carrying the same ``command_id`` (one is made up if none is given). Unknown fields are
    refused, as over HTTP: a ``result`` frame ``rejected``, ``invalid_body``."""

    command: msgspec.Raw
    command_id: str | None = None


class LooseCommandFrame(CommandFrame, forbid_unknown_fields=False):
    """A ``CommandFrame`` with whatever else beside: decoded only to answer such a frame with a refusal
    (its ``command_id``) rather than close the socket as for a frame of no known kind."""


class ResultFrame(msgspec.Struct, kw_only=True, omit_defaults=True, tag="result", tag_field="type"):
    """A command's outcome, as over HTTP: ``applied`` with the ``seq`` of its last event (sent after that
    event's frame), or ``rejected`` with the rule's (or the gateway's) ``code`` and ``message``."""

    command_id: str
    status: Literal["applied", "rejected"]
    seq: int = 0
    first_seq: int = 0
    code: str = ""
    message: str = ""


ClientFrame = Ping | CommandFrame
"""What a client may send on the WebSocket (everything else closes it with 4400)."""

ServerFrame = Hello | EventFrame | Resync | Pong | ResultFrame | ChatFrame


class Refusal(Exception):
    """A socket refused or ended by the gateway: the close code and the reason it is sent."""

    def __init__(self, code: int, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason
