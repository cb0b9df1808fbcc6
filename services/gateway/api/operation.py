"""One endpoint, declared once: its handler and its OpenAPI operation.

The app's routes and ``/openapi.json`` are both made from the tables of endpoints (``openapi.ENDPOINTS``
and ``players_endpoints.ENDPOINTS``), so a route cannot go undocumented, nor a documented path unrouted.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import msgspec
from starlette.requests import Request
from starlette.responses import FileResponse, Response

Handler = Callable[..., Awaitable[Any]]
"""An HTTP endpoint (a ``Request``) or the game socket (a ``WebSocket``)."""
STATIC = Path(__file__).parent.parent / "static"

ERRORS = {
    "400": "Malformed body or parameter, or JSON nested too deep",
    "401": "Missing token, not signed in, or a wrong name or password",
    "403": "Wrong token, not allowed to the caller, or sent from another site's page",
    "404": "No such game, tournament, account, table or game kind",
    "409": "Refused by the rules or by the state of things: the game is over, a taken name, a full or closed "
    "table, too many open tables or muted authors (the message says which)",
    "413": "Body too large",
    "422": "Not a valid command or request, unknown fields included (the message says why)",
    "429": "Over a rate limit (docs/limits.md); Retry-After says when to try again",
    "503": "Redis is unreachable; Retry-After says when to try again",
}
RETRY_AFTER = {"Retry-After": {"description": "seconds to wait", "schema": {"type": "integer", "minimum": 1}}}
ID_SCHEMA = {"type": "string", "pattern": "^[A-Za-z0-9_.:-]{1,64}$"}
GAME_ID = {"name": "game_id", "in": "path", "required": True, "schema": ID_SCHEMA}
SESSION: list[dict[str, list[str]]] = [{"sessionCookie": []}]


class Endpoint(msgspec.Struct, frozen=True):
    """A route's handler with what ``/openapi.json`` says of it; ``name`` names the route for
    ``url_path_for``."""

    handler: Handler
    doc: dict[str, Any]
    name: str | None = None
    websocket: bool = False


def schema_ref(struct: type | None) -> dict[str, Any]:
    return {"$ref": f"#/components/schemas/{struct.__name__}"} if struct is not None else {}


def as_json(schema: dict[str, Any]) -> dict[str, Any]:
    return {"application/json": {"schema": schema}}


def body(struct: type) -> dict[str, Any]:
    return {"required": True, "content": as_json(schema_ref(struct))}


def query(name: str, schema: dict[str, Any], text: str) -> dict[str, Any]:
    return {"name": name, "in": "query", "required": False, "schema": schema, "description": text}


def path_param(name: str, schema: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"name": name, "in": "path", "required": True, "schema": schema or {"type": "string"}}


def op(
    handler: Handler, summary: str, code: str, struct: type | None, errors: str = "", **extra: Any
) -> Endpoint:
    """An operation answering ``code`` with ``struct``, or one of ``errors`` (space-separated codes) with an
    ``Error``; every one of them may also answer 503 (Redis unreachable)."""
    responses: dict[str, Any] = {code: {"description": summary}}
    if struct is not None:
        responses[code]["content"] = as_json(schema_ref(struct))
    for err in [*errors.split(), "503"]:
        responses[err] = {
            "description": ERRORS[err],
            "content": as_json({"$ref": "#/components/schemas/Error"}),
        }
        if err in ("429", "503"):
            responses[err]["headers"] = RETRY_AFTER
    return Endpoint(handler, {"summary": summary, "responses": responses, **extra})


def page(file: str, summary: str, *parameters: dict[str, Any], name: str | None = None) -> Endpoint:
    """A web client's page: ``static/<file>``, whose script draws it."""

    async def serve_page(request: Request) -> Response:
        return FileResponse(STATIC / file)

    serve_page.__name__ = f"{file.removesuffix('.html')}_page"  # its label in /metrics

    html = {"200": {"description": "HTML", "content": {"text/html": {}}}}
    doc = {"summary": summary, "responses": html, **({"parameters": list(parameters)} if parameters else {})}
    return Endpoint(serve_page, doc, name)


def plain(handler: Handler, summary: str, response: dict[str, Any]) -> Endpoint:
    """An operation whose answer is not JSON of a Struct (metrics, this document)."""
    return Endpoint(handler, {"summary": summary, "responses": {"200": response}})
