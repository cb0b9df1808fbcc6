"""The game WebSocket's frames as msgspec Structs: what the gateway sends (``hello``, ``event``, ``resync``,
``pong``, ``result``; ``chat`` frames are the players' API's, ``api/players_protocol.py``) and what a client
may send (``ping``, ``command``). The OpenAPI document describes them (``api/openapi.py``)."""

from __future__ import annotations

import re
from typing import Any, Literal

import msgspec

COMMAND_ID = re.compile(r"^[A-Za-z0-9_.:-]{1,64}\Z")
"""What a command id may be, in a command frame as over HTTP (``commands.parse_command`` checks it)."""


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
