"""Request plumbing of the HTTP API: errors as ``{"error", "message"}``, body and parameter decoding,
viewer identification, and how a recorded command result is reported.

``ApiError``, ``json_response``, ``error_response`` and ``COMMAND_ID`` (``wire/``), ``charge_command`` and
``rate_limited`` (``commands.py``) live below the API, where the socket and the feeds use them too; they are
named here for the API's modules, which import them from this module (``docs/architecture.md``)."""

from __future__ import annotations

import re
from typing import TypeVar

import msgspec
from starlette.requests import Request
from starlette.responses import Response

from events.envelope import CommandRecord
from events.errors import UnknownGame
from services.gateway.access import auth
from services.gateway.access.sessions import session_seat
from services.gateway.api.protocol import MAX_BODY, CommandOutcome
from services.gateway.commands import charge_command as charge_command
from services.gateway.commands import rate_limited as rate_limited
from services.gateway.context import Gateway, gateway_of
from services.gateway.feeds.fanout import GameFeed
from services.gateway.wire import json_checks
from services.gateway.wire.errors import ApiError as ApiError
from services.gateway.wire.errors import error_response as error_response
from services.gateway.wire.errors import json_response as json_response
from services.gateway.wire.frames import COMMAND_ID as COMMAND_ID

T = TypeVar("T")


async def api_error_handler(request: Request, exc: Exception) -> Response:
    """Starlette exception handler for ``ApiError``."""
    assert isinstance(exc, ApiError)
    return error_response(exc.status, exc.code, exc.message, exc.headers)


def too_many(what: str, wait_s: float) -> ApiError:
    """The 429 refusal of too many ``what`` (chat messages, sign-in attempts), in whole seconds."""
    retry = str(max(1, int(wait_s + 0.999)))
    return ApiError(429, "rate_limited", f"too many {what}; retry in {retry} s", {"Retry-After": retry})


def presented_admin_token(request: Request) -> str | None:
    """The admin token as sent, as ``Authorization: Bearer`` or ``X-Admin-Token`` (or nothing)."""
    return auth.bearer(request.headers.get("authorization")) or request.headers.get("x-admin-token")


def require_admin(request: Request, needing_it: str) -> None:
    """401 without the admin token, 403 with a wrong one; ``needing_it`` says what was asked."""
    admin = presented_admin_token(request)
    if not auth.admin_ok(gateway_of(request).settings.admin_token, admin):
        code = 401 if admin is None else 403
        raise ApiError(code, "admin_token_required", f"{needing_it} needs the admin token")


# --- helpers --------------------------------------------------------------------------------------------


async def read_body(request: Request) -> bytes:
    """The body, refusing more than ``MAX_BODY`` bytes without reading it all."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isascii() and declared.isdigit() and int(declared) > MAX_BODY:
        raise ApiError(413, "too_large", f"a request body may be at most {MAX_BODY} bytes")
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY:
            raise ApiError(413, "too_large", f"a request body may be at most {MAX_BODY} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


def decode_body(data: bytes, kind: type[T]) -> T:
    """A JSON body as ``kind``: 400 if it is not JSON (or nested too deep), 422 if it is JSON of the
    wrong shape."""
    if json_checks.too_deep(data):
        raise ApiError(400, "too_deep", f"JSON may be nested at most {json_checks.MAX_DEPTH} deep")
    try:
        return msgspec.json.decode(data, type=kind)
    except msgspec.ValidationError as exc:
        raise ApiError(422, "invalid_body", str(exc)) from exc
    except (msgspec.DecodeError, RecursionError) as exc:
        raise ApiError(400, "malformed_body", str(exc)) from exc


INT_PARAM = re.compile(r"^-?[0-9]{1,19}\Z")
MAX_INT_PARAM = 1 << 62
"""The largest offset or sequence number a query parameter may name (``openapi.py`` documents it)."""


def int_param(request: Request, name: str, default: int, low: int = 0, high: int = MAX_INT_PARAM) -> int:
    raw = request.query_params.get(name)
    if raw is None or raw == "":
        return default
    if not INT_PARAM.match(raw):  # int() takes "²", "1_000" and 4,300 digits; the API takes plain numbers
        raise ApiError(400, "bad_parameter", f"{name} must be an integer, not {raw[:40]!r}")
    value = int(raw)
    if not low <= value <= high:
        raise ApiError(400, "bad_parameter", f"{name} must be between {low} and {high}")
    return value


async def feed_of(gateway: Gateway, game_id: str) -> GameFeed:
    try:
        return await gateway.hub.feed(game_id)
    except UnknownGame as exc:
        raise ApiError(404, "unknown_game", f"no game {game_id!r}") from exc


async def viewed_game(request: Request, required: bool = False) -> tuple[Gateway, GameFeed, int | None]:
    """The gateway, the feed of the path's ``game_id`` (404 for no game) and the caller's seat
    (``viewer_seat``)."""
    gateway = gateway_of(request)
    game_id = request.path_params["game_id"]
    feed = await feed_of(gateway, game_id)
    return gateway, feed, await viewer_seat(gateway, request, game_id, required)


async def viewer_seat(gateway: Gateway, request: Request, game_id: str, required: bool) -> int | None:
    """The seat of the bearer token (``?token=`` also works for links), else of the signed-in account
    (``sessions.py``), None for a spectator."""
    token = auth.bearer(request.headers.get("authorization")) or request.query_params.get("token")
    if token is None:
        seat = await session_seat(gateway, request, game_id)  # a signed-in account's own seat
        if seat is not None:
            return seat
        if required:
            raise ApiError(401, "missing_token", "send the seat's token as 'Authorization: Bearer <token>'")
        return None
    seat = await gateway.seat_for(game_id, token)
    if seat is None:
        raise ApiError(403, "wrong_token", "this token is not a seat token of this game")
    return seat


def outcome_of(record: CommandRecord) -> tuple[CommandOutcome, int]:
    """A recorded result as the API reports it, with its status code (409 for a rule refusal)."""
    if record.status == "applied":
        outcome = CommandOutcome(
            command_id=record.command_id, status="applied", seq=record.last_seq, first_seq=record.first_seq
        )
        return outcome, 200
    outcome = CommandOutcome(
        command_id=record.command_id,
        status="rejected",
        code=record.code,
        error=record.code,
        message=record.message,
    )
    return outcome, 409
