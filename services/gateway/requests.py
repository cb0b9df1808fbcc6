"""Request plumbing of the HTTP API: errors as ``{"error", "message"}``, body and parameter decoding,
viewer identification, and how a recorded command result is reported."""

from __future__ import annotations

import re
from typing import Any, TypeVar

import msgspec
from starlette.requests import Request
from starlette.responses import Response

from events.envelope import CommandRecord
from events.errors import UnknownGame
from services.gateway import auth
from services.gateway.context import Gateway
from services.gateway.fanout import GameFeed
from services.gateway.protocol import MAX_BODY, CommandOutcome, Error

T = TypeVar("T")

COMMAND_ID = re.compile(r"^[A-Za-z0-9_.:-]{1,64}$")
_encoder = msgspec.json.Encoder()


class ApiError(Exception):
    """A refusal, turned into ``{"error": code, "message": text}`` with its status."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


def json_response(value: Any, status: int = 200) -> Response:
    """A JSON response encoded by msgspec (Structs, views and events included)."""
    return Response(_encoder.encode(value), status_code=status, media_type="application/json")


def error_response(status: int, code: str, message: str) -> Response:
    return json_response(Error(error=code, message=message), status)


async def api_error_handler(request: Request, exc: Exception) -> Response:
    """Starlette exception handler for ``ApiError``."""
    assert isinstance(exc, ApiError)
    return error_response(exc.status, exc.code, exc.message)


# --- helpers --------------------------------------------------------------------------------------------


async def read_body(request: Request) -> bytes:
    """The body, refusing more than ``MAX_BODY`` bytes without reading it all."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > MAX_BODY:
        raise ApiError(413, "too_large", f"a request body may be at most {MAX_BODY} bytes")
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY:
            raise ApiError(413, "too_large", f"a request body may be at most {MAX_BODY} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


def decode_body(data: bytes, kind: type[T]) -> T:
    """A JSON body as ``kind``: 400 if it is not JSON, 422 if it is JSON of the wrong shape."""
    try:
        return msgspec.json.decode(data, type=kind)
    except msgspec.ValidationError as exc:
        raise ApiError(422, "invalid_body", str(exc)) from exc
    except msgspec.DecodeError as exc:
        raise ApiError(400, "malformed_body", str(exc)) from exc


def int_param(request: Request, name: str, default: int, low: int = 0, high: int = 1 << 62) -> int:
    raw = request.query_params.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError as exc:
        raise ApiError(400, "bad_parameter", f"{name} must be an integer, not {raw!r}") from exc
    if not low <= value <= high:
        raise ApiError(400, "bad_parameter", f"{name} must be between {low} and {high}")
    return value


async def feed_of(gateway: Gateway, game_id: str) -> GameFeed:
    try:
        return await gateway.hub.feed(game_id)
    except UnknownGame as exc:
        raise ApiError(404, "unknown_game", f"no game {game_id!r}") from exc


async def viewer_seat(gateway: Gateway, request: Request, game_id: str, required: bool) -> int | None:
    """The seat of the bearer token (``?token=`` also works for links), None for a spectator."""
    token = auth.bearer(request.headers.get("authorization")) or request.query_params.get("token")
    if token is None:
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
