"""A refused request: ``ApiError`` (raised anywhere below a handler) and the ``{"error", "message"}`` body it
becomes, with the JSON response every endpoint answers with."""

from __future__ import annotations

from typing import Any

import msgspec
from starlette.responses import Response

_encoder = msgspec.json.Encoder()


class Error(msgspec.Struct, kw_only=True):
    """Every 4xx/5xx body: a stable machine-readable ``error`` code and a human ``message``."""

    error: str
    message: str


class ApiError(Exception):
    """A refusal, turned into ``{"error": code, "message": text}`` with its status."""

    def __init__(self, status: int, code: str, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers


def json_response(value: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    """A JSON response encoded by msgspec (Structs, views and events included)."""
    return Response(
        _encoder.encode(value), status_code=status, media_type="application/json", headers=headers
    )


def error_response(status: int, code: str, message: str, headers: dict[str, str] | None = None) -> Response:
    return json_response(Error(error=code, message=message), status, headers)
