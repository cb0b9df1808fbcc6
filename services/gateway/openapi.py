"""The OpenAPI 3.1 description of the gateway, built from the wire Structs in ``protocol.py``.

``OPERATIONS`` lists every documented path and method; a test checks that it and the app's routes are
the same set, and that responses decode as the schemas say.
"""

from __future__ import annotations

from typing import Any

import msgspec

from services.gateway import protocol as p

Op = dict[str, Any]

_ERRORS = {
    "400": "Malformed body or parameter",
    "401": "Missing token",
    "403": "Wrong token",
    "404": "Unknown game",
    "409": "Refused by the rules, or the game is over",
    "413": "Body too large",
    "422": "Not a valid command or request",
}

GAME_ID = {"name": "game_id", "in": "path", "required": True, "schema": {"type": "string"}}
TOKEN_Q = {"name": "token", "in": "query", "required": False, "schema": {"type": "string"},
           "description": "A seat token (instead of the Authorization header)."}  # fmt: skip


def _query(name: str, kind: str, text: str) -> dict[str, Any]:
    return {"name": name, "in": "query", "required": False, "schema": {"type": kind}, "description": text}


def _op(summary: str, ok: tuple[str, type | None], errors: tuple[str, ...] = (), **extra: Any) -> Op:
    code, struct = ok
    content = {"application/json": {"schema": _ref(struct)}} if struct is not None else None
    responses: dict[str, Any] = {code: {"description": summary, **({"content": content} if content else {})}}
    for err in errors:
        responses[err] = {
            "description": _ERRORS[err],
            "content": {"application/json": {"schema": _ref(p.Error)}},
        }
    return {"summary": summary, "responses": responses, **extra}


def _ref(struct: type | None) -> dict[str, Any]:
    return {"$ref": f"#/components/schemas/{struct.__name__}"} if struct is not None else {}


def _body(struct: type) -> dict[str, Any]:
    return {"required": True, "content": {"application/json": {"schema": _ref(struct)}}}


BEARER: list[dict[str, list[str]]] = [{"seatToken": []}]

OPERATIONS: dict[str, dict[str, Op]] = {
    "/api/games": {
        "get": _op("Live and finished games, newest first, paged.", ("200", p.GameList), ("400",),
                   parameters=[_query("status", "string", "live, finished or all"),
                               _query("offset", "integer", "skip this many"),
                               _query("limit", "integer", "at most this many (1-500)")]),
        "post": _op("Create a game; returns each human seat's secret token once.", ("201", p.GameCreated),
                    ("400", "401", "403", "409", "413", "422"), requestBody=_body(p.CreateGame),
                    security=[{"adminToken": []}, {}]),
    },
    "/api/catalog": {"get": _op("The games this gateway hosts.", ("200", p.Catalog))},
    "/api/games/{game_id}": {
        "get": _op("The caller's view (a spectator's without a token); ?at=SEQ for an earlier one.",
                   ("200", p.GameState), ("400", "403", "404"),
                   parameters=[GAME_ID, TOKEN_Q, _query("at", "integer", "the view after this event")]),
    },
    "/api/games/{game_id}/legal": {
        "get": _op("The seat's legal commands; each item is exactly what may be posted as `command`.",
                   ("200", None), ("401", "403", "404"), parameters=[GAME_ID, TOKEN_Q], security=BEARER),
    },
    "/api/games/{game_id}/events": {
        "get": _op("Events after `from`, as the caller may see them (all of them once the game is over).",
                   ("200", p.EventPage), ("400", "403", "404"),
                   parameters=[GAME_ID, TOKEN_Q, _query("from", "integer", "after this sequence number"),
                               _query("limit", "integer", "at most this many (1-5000)")]),
    },
    "/api/games/{game_id}/commands": {
        "post": _op("Submit a command as the token's seat. 202 when queued; with ?wait=true 200 applied "
                    "or 409 rejected (body: CommandOutcome).", ("202", p.Accepted),
                    ("400", "401", "403", "404", "409", "413", "422"), requestBody=_body(p.SubmitCommand),
                    parameters=[GAME_ID, _query("wait", "boolean", "wait for the outcome")], security=BEARER),
    },
    "/api/games/{game_id}/commands/{command_id}": {
        "get": _op("The recorded outcome (pending until decided) of the token's seat's command: command ids "
                   "are scoped to their seat. 404 for a name that is not a command id.",
                   ("200", p.CommandOutcome), ("401", "403", "404"), security=BEARER,
                   parameters=[GAME_ID, TOKEN_Q, {"name": "command_id", "in": "path", "required": True,
                                                  "schema": {"type": "string",
                                                             "pattern": "^[A-Za-z0-9_.:-]{1,64}$"}}]),
    },
    "/ws/games/{game_id}": {
        "get": {
            "summary": "WebSocket: hello, then one event frame per appended event (see ServerFrame). "
                       "Close codes: 4400 bad request, 4401 bad token, 4403 origin, 4404 unknown game, "
                       "4429 too many sockets, 1009 frame too big.",
            "parameters": [GAME_ID, TOKEN_Q, _query("from", "integer", "the last sequence number seen")],
            "responses": {"101": {"description": "Switching protocols; frames are ServerFrame JSON"}},
        }
    },
    "/healthz": {"get": _op("200 when Redis answers, else 503.", ("200", p.Health))},
    "/metrics": {"get": {"summary": "Prometheus text format.",
                         "responses": {"200": {"description": "metrics", "content": {"text/plain": {}}}}}},
    "/openapi.json": {"get": {"summary": "This document.", "responses": {"200": {"description": "OpenAPI"}}}},
    "/": {"get": {"summary": "The web client's lobby.", "responses": {"200": {"description": "HTML",
                                                                          "content": {"text/html": {}}}}}},
    "/games/{game_id}": {"get": {"summary": "The web client's game page.", "parameters": [GAME_ID],
                                 "responses": {"200": {"description": "HTML", "content": {"text/html": {}}}}}},
}  # fmt: skip

SCHEMA_STRUCTS: tuple[Any, ...] = (
    p.Error, p.CreateGame, p.SeatGrant, p.GameCreated, p.SubmitCommand, p.Accepted, p.CommandOutcome,
    p.GameSummary, p.GameList, p.GameState, p.EventItem, p.EventPage, p.CatalogGame, p.Catalog, p.Health,
    p.ServerFrame, p.ClientFrame,
)  # fmt: skip


def spec() -> dict[str, Any]:
    """The whole OpenAPI document."""
    _, components = msgspec.json.schema_components(SCHEMA_STRUCTS, ref_template="#/components/schemas/{name}")
    return {
        "openapi": "3.1.0",
        "info": {"title": "Harbormaster gateway", "version": "1.0.0",
                 "description": "Play and watch El Capitán, Manila and East India Companies. Errors are "
                                "{error, message}; seat tokens go in 'Authorization: Bearer <token>'."},
        "paths": OPERATIONS,
        "components": {
            "schemas": components,
            "securitySchemes": {
                "seatToken": {"type": "http", "scheme": "bearer"},
                "adminToken": {"type": "http", "scheme": "bearer",
                               "description": "HARBORMASTER_ADMIN_TOKEN, when the gateway has one"},
            },
        },
    }  # fmt: skip
