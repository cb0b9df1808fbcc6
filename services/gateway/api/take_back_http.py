"""``GET /api/games/{id}/undo``: whether the caller's seat may take back its moves now (issue 44), and
which of its legal moves could not be taken back once played (for "Ask before one-click moves that cannot be
undone"). The take-back itself is a command like any other: ``{"type": "TakeBack"}`` (``domain/take_back.py``).

Tournament games take no moves back: the gateway refuses ``TakeBack`` in them (``commands.parse_command``),
and this answers ``may: false`` with every move final.
"""

from __future__ import annotations

from typing import Any

import msgspec
from starlette.requests import Request
from starlette.responses import Response

from domain.engine import Rng, RuleViolation
from domain.take_back import TakeBack, may_take_back
from services.gateway.api.requests import json_response, viewed_game


def no_chance() -> Rng:
    """What a move is tried with to see whether it could be taken back: whether a move reveals or draws
    depends on the rules, never on what is drawn, so no draw of the game's own is made (nor shown)."""
    return Rng(b"\x00" * 32)


class TakeBackNow(msgspec.Struct, kw_only=True):
    """What the Undo button and the one-click confirmation read."""

    seq: int
    """The position this answers for."""
    may: bool
    """Whether the seat may post ``{"type": "TakeBack"}`` now."""
    allowed: bool
    """Whether this game takes moves back at all (not a tournament's, not one started before issue 44)."""
    final: list[Any] = []
    """With ``?final=1`` on the seat's turn: the legal commands (as ``/legal`` lists them) that could not be
    taken back once played (they reveal something, draw at random, or the game takes nothing back)."""


def undoable(game: Any, state: Any, seat: int, command: Any) -> bool:
    """Whether ``command``, played now by ``seat``, could be taken back right after."""
    try:
        events = game.decide(state, seat, command, no_chance())
    except RuleViolation:
        return False
    return may_take_back(game.fold(events, state), seat) if events else False


async def take_back(request: Request) -> Response:
    """``GET /api/games/{id}/undo[?final=1]`` for the token's (or signed-in account's) seat."""
    _, feed, seat = await viewed_game(request, required=True)
    assert seat is not None
    state, game = feed.state, feed.game
    live = state is not None and not feed.finished
    refused = _refusal(game, state, seat) if live else "over"
    allowed = live and not feed.meta.tournament and not refused.endswith(".take_back_unavailable")
    answer = TakeBackNow(seq=feed.seq, may=allowed and not refused, allowed=allowed)
    if request.query_params.get("final") == "1" and live and seat in game.to_act(state):
        legal = game.legal_commands(state, seat)
        answer.final = legal if not allowed else [c for c in legal if not undoable(game, state, seat, c)]
    return json_response(answer)


def _refusal(game: Any, state: Any, seat: int) -> str:
    """The rule's code refusing the seat's take-back now, or ``""`` when it would be taken."""
    try:
        game.decide(state, seat, TakeBack(), no_chance())
    except RuleViolation as exc:
        return exc.code
    return ""
