"""The OpenAPI 3.1 description of the gateway, built from the wire Structs in ``protocol.py``.

``OPERATIONS`` lists every documented path and method; a test checks that it and the app's routes are
the same set, that responses decode as the schemas say, that each hosted game's commands are described
(``<game>.Command``), and that the documented parameter bounds are the enforced ones.
"""

from __future__ import annotations

import typing
from collections.abc import Mapping
from typing import Any

import msgspec

from domain.engine import Game
from events.ids import ID_PATTERN
from services.gateway.api import clocks_http as c
from services.gateway.api import players_openapi
from services.gateway.api import protocol as p
from services.gateway.api import tournaments_http as t
from services.gateway.api.requests import COMMAND_ID as COMMAND_ID_RE
from services.gateway.api.requests import MAX_INT_PARAM
from services.tournament_service import TournamentSpec

Op = dict[str, Any]

_ERRORS = {
    "400": "Malformed body or parameter, or JSON nested too deep",
    "401": "Missing token",
    "403": "Wrong token",
    "404": "Unknown game",
    "409": "Refused by the rules, or the game is over",
    "413": "Body too large",
    "422": "Not a valid command or request (unknown fields included)",
    "429": "Over a rate limit (docs/limits.md); Retry-After says when to try again",
    "503": "Redis is unreachable; Retry-After says when to try again",
}
RETRY_AFTER = {"Retry-After": {"description": "seconds to wait", "schema": {"type": "integer", "minimum": 1}}}
ID_SCHEMA = {"type": "string", "pattern": "^[A-Za-z0-9_.:-]{1,64}$"}

GAME_ID = {"name": "game_id", "in": "path", "required": True, "schema": ID_SCHEMA}
COMMAND_ID = {"name": "command_id", "in": "path", "required": True, "schema": ID_SCHEMA}
TOKEN_Q = {"name": "token", "in": "query", "required": False, "schema": {"type": "string"},
           "description": "A seat token (instead of the Authorization header)."}  # fmt: skip


def _query(name: str, schema: dict[str, Any], text: str) -> dict[str, Any]:
    return {"name": name, "in": "query", "required": False, "schema": schema, "description": text}


def _ecma(pattern: str) -> str:
    """A Python pattern anchored with ``\\Z`` as JSON Schema writes it (ECMA-262: ``$``)."""
    return pattern.removesuffix("\\Z") + "$"


MAX_SEQ = 10**18 - 1
"""``from`` on a WebSocket: at most 18 digits (``ws.SEQ``)."""


def _int(low: int, high: int | None = None) -> dict[str, Any]:
    return {"type": "integer", "minimum": low, **({"maximum": high} if high is not None else {})}


def _json(schema: dict[str, Any]) -> dict[str, Any]:
    return {"application/json": {"schema": schema}}


def _op(summary: str, ok: tuple[str, type | None], errors: tuple[str, ...] = (), **extra: Any) -> Op:
    """An operation; every one of them may also answer 503 (Redis unreachable)."""
    code, struct = ok
    responses: dict[str, Any] = {code: {"description": summary}}
    if struct is not None:
        responses[code]["content"] = _json(_ref(struct))
    for err in (*errors, "503"):
        responses[err] = {"description": _ERRORS[err], "content": _json(_ref(p.Error))}
        if err in ("429", "503"):
            responses[err]["headers"] = RETRY_AFTER
    return {"summary": summary, "responses": responses, **extra}


def _ref(struct: type | None) -> dict[str, Any]:
    return {"$ref": f"#/components/schemas/{struct.__name__}"} if struct is not None else {}


def _body(struct: type) -> dict[str, Any]:
    return {"required": True, "content": _json(_ref(struct))}


def _submit() -> Op:
    op = _op("Submit a command as the token's seat. 202 when queued; with ?wait=true 200 applied or 409 "
             "rejected (body: CommandOutcome), 409 game_finished (body: Error).", ("202", p.Accepted),
             ("400", "401", "403", "404", "409", "413", "422", "429"), requestBody=_body(p.SubmitCommand),
             parameters=[GAME_ID, _query("wait", {"type": "boolean"}, "wait for the outcome (true, 1 or yes)")],
             security=BEARER)  # fmt: skip
    op["responses"]["200"] = {"description": "?wait=true: applied", "content": _json(_ref(p.CommandOutcome))}
    op["responses"]["409"]["content"] = _json({"oneOf": [_ref(p.CommandOutcome), _ref(p.Error)]})
    return op


BEARER: list[dict[str, list[str]]] = [{"seatToken": []}]
TOURNAMENT_ID = {"name": "tournament_id", "in": "path", "required": True, "schema": {"type": "string"}}
ORGANISER: list[dict[str, list[str]]] = [{"organiserKey": []}, {"adminToken": []}]
"""Every tournament write but creation: the tournament's own organiser key or the admin token, never none."""

OPERATIONS: dict[str, dict[str, Op]] = {
    "/api/games": {
        "get": _op("Live and finished games, newest first, paged.", ("200", p.GameList), ("400",),
                   parameters=[_query("status", {"type": "string", "enum": ["live", "finished", "all"]},
                                      "which games"),
                               _query("offset", _int(0, MAX_INT_PARAM), "skip this many"),
                               _query("limit", _int(1, 500), "at most this many")]),
        "post": _op("Create a game; returns each human seat's secret token once.", ("201", p.GameCreated),
                    ("400", "401", "403", "409", "413", "422", "429"), requestBody=_body(p.CreateGame),
                    security=[{"adminToken": []}, {}]),
    },
    "/api/catalog": {"get": _op("The games this gateway hosts.", ("200", p.Catalog))},
    "/api/games/{game_id}": {
        "get": _op("The caller's view (a spectator's without a token); ?at=SEQ for an earlier one.",
                   ("200", p.GameState), ("400", "403", "404"),
                   parameters=[GAME_ID, TOKEN_Q,
                               _query("at", _int(1), "the view after this event (from the end of set-up to the last seen)")]),
    },
    "/api/games/{game_id}/legal": {
        "get": _op("The seat's legal commands; each item is exactly what may be posted as `command`.",
                   ("200", None), ("401", "403", "404"), parameters=[GAME_ID, TOKEN_Q], security=BEARER),
    },
    "/api/games/{game_id}/events": {
        "get": _op("Events after `from`, as the caller may see them (all of them once the game is over).",
                   ("200", p.EventPage), ("400", "403", "404"),
                   parameters=[GAME_ID, TOKEN_Q, _query("from", _int(0, MAX_INT_PARAM), "after this sequence number"),
                               _query("limit", _int(1, 5000), "at most this many")]),
    },
    "/api/games/{game_id}/clock": {
        "get": _op("Each seat's move clock in a tournament game with one: the limits, the last move's time, "
                   "each seat's used time and the server's now (limits null: no clock).",
                   ("200", c.GameClock), ("403", "404"), parameters=[GAME_ID, TOKEN_Q]),
    },
    "/api/games/{game_id}/commands": {"post": _submit()},
    "/api/games/{game_id}/commands/{command_id}": {
        "get": _op("The recorded outcome (pending until decided) of the token's seat's command: command ids "
                   "are scoped to their seat. 404 for a name that is not a command id.",
                   ("200", p.CommandOutcome), ("401", "403", "404"), security=BEARER,
                   parameters=[GAME_ID, TOKEN_Q, COMMAND_ID]),
    },
    "/ws/games/{game_id}": {
        "get": {
            "summary": "WebSocket: hello, then one event frame per appended event (see ServerFrame); a seat "
                       "may send command frames (see ClientFrame). Close codes: 4400 bad request, 4401 bad "
                       "token, 4403 origin, 4404 unknown game, 4429 too many sockets (gateway or address), "
                       "1007 JSON nested too deep, 1008 over its frame budget or not reading, 1009 frame over 16 KiB, 1013 Redis unavailable.",
            "parameters": [GAME_ID, TOKEN_Q, _query("from", _int(0, MAX_SEQ), "the last sequence number seen")],
            "responses": {"101": {"description": "Switching protocols; frames are ServerFrame JSON"}},
        }
    },
    "/api/tournaments": {
        "get": _op("Tournaments, newest first, paged (no standings: see one tournament).",
                   ("200", t.TournamentList), ("400",),
                   parameters=[_query("offset", _int(0, MAX_INT_PARAM), "skip this many"), _query("limit", _int(1, 500), "at most this many")]),
        "post": _op("Create a tournament (entrants — a person is one without a bot; its key is in `people`, "
                    "shown once — or players + bots taken in turn); "
                    "start it with /start.", ("201", t.TournamentInfo), ("400", "401", "403", "409", "413", "422"),
                    requestBody=_body(TournamentSpec), security=[{"adminToken": []}, {}]),
    },
    "/api/tournaments/{tournament_id}": {
        "get": _op("A tournament: settings, progress, standings (tie-breaks and ratings) and every round's "
                   "tables with their game ids; with a person's key as bearer token, `you`: their table and its link.",
                   ("200", t.TournamentInfo), ("403", "404"), parameters=[TOURNAMENT_ID]),
    },
    **{
        f"/api/tournaments/{{tournament_id}}/{verb}": {
            "post": _op(f"{text} The organiser key, or the admin token.", ("200", t.TournamentInfo),
                        ("401", "403", "404", "409"), parameters=[TOURNAMENT_ID], security=ORGANISER),
        }
        for verb, text in (("start", "Start: pair round 1 and create its games."),
                           ("pause", "Pause: games in play go on; no new round is paired until resumed."),
                           ("resume", "Resume: a round that finished meanwhile is closed and the next paired."))
    },
    "/api/tournaments/{tournament_id}/withdraw": {
        "post": _op("Withdraw a player (the organiser key, or the admin token): never paired again, results kept, "
                    "never among the winners.", ("200", t.TournamentInfo), ("400", "401", "403", "404", "409", "413", "422"),
                    parameters=[TOURNAMENT_ID], requestBody=_body(t.WithdrawBody), security=ORGANISER),
    },
    "/api/tournaments/{tournament_id}/adjudicate": {
        "post": _op("Adjudicate a table whose game has not ended (the organiser key, or the admin token): its "
                    "ranking as given, with a reason; points count, ratings do not move.", ("200", t.TournamentInfo),
                    ("400", "401", "403", "404", "409", "413", "422"), parameters=[TOURNAMENT_ID],
                    requestBody=_body(t.AdjudicateBody), security=ORGANISER),
    },
    "/api/tournaments/{tournament_id}/replace": {
        "post": _op("Give a person's place to another person, mid-game too (the organiser key, or the admin token): "
                    "the newcomer's key is in `people`, shown once; the old key no longer opens the seat.",
                    ("200", t.TournamentInfo), ("400", "401", "403", "404", "409", "413", "422"),
                    parameters=[TOURNAMENT_ID], requestBody=_body(t.ReplaceBody), security=ORGANISER),
    },
    "/api/tournaments/{tournament_id}/cancel": {
        "post": _op("Cancel the tournament (the organiser key, or the admin token): nothing is paired or recorded "
                    "after it.", ("200", t.TournamentInfo), ("400", "401", "403", "404", "409", "413", "422"),
                    parameters=[TOURNAMENT_ID], requestBody=_body(t.CancelBody), security=ORGANISER),
    },
    **players_openapi.OPERATIONS,  # accounts, tables, chat, ratings
    "/healthz": {"get": _op("200 when Redis answers, else 503.", ("200", p.Health))},
    "/metrics": {"get": {"summary": "Prometheus text format.",
                         "responses": {"200": {"description": "metrics", "content": {"text/plain": {}}}}}},
    "/openapi.json": {"get": {"summary": "This document.", "responses": {"200": {"description": "OpenAPI"}}}},
    "/": {"get": {"summary": "The web client's lobby.", "responses": {"200": {"description": "HTML",
                                                                          "content": {"text/html": {}}}}}},
    "/games/{game_id}": {"get": {"summary": "The web client's game page.", "parameters": [GAME_ID],
                                 "responses": {"200": {"description": "HTML", "content": {"text/html": {}}}}}},
    "/tournaments": {"get": {"summary": "The web client's tournament list.",
                             "responses": {"200": {"description": "HTML", "content": {"text/html": {}}}}}},
    "/tournaments/{tournament_id}": {"get": {"summary": "The web client's tournament page: standings, rounds, "
                                                        "tables (live, polled every 2 s).",
                                             "parameters": [TOURNAMENT_ID],
                                             "responses": {"200": {"description": "HTML",
                                                                   "content": {"text/html": {}}}}}},
}  # fmt: skip

SCHEMA_STRUCTS: tuple[Any, ...] = (
    p.Error, p.CreateGame, p.SeatGrant, p.GameCreated, p.SubmitCommand, p.Accepted, p.CommandOutcome,
    p.GameSummary, p.GameList, p.GameState, p.EventItem, p.EventPage, p.CatalogGame, p.Catalog, p.Health,
    p.ServerFrame, p.ClientFrame, TournamentSpec, t.TournamentInfo, t.TournamentList, c.GameClock,
    t.WithdrawBody, t.CancelBody, t.AdjudicateBody, t.ReplaceBody,
    *players_openapi.STRUCTS,
)  # fmt: skip


def command_schemas(games: Mapping[str, Game[Any, Any, Any, Any]]) -> dict[str, Any]:
    """Each game's commands as components ``<game>.<Command>``, and ``<game>.Command``: one of them,
    told apart by ``type``."""
    components: dict[str, Any] = {}
    for key, game in sorted(games.items()):
        kinds = typing.get_args(game.Command) or (game.Command,)
        template = f"#/components/schemas/{key}.{{name}}"
        refs, parts = msgspec.json.schema_components(kinds, ref_template=template)
        components.update({f"{key}.{name}": schema for name, schema in parts.items()})
        mapping = {str(k.__struct_config__.tag): r["$ref"] for k, r in zip(kinds, refs, strict=True)}
        components[f"{key}.Command"] = {
            "description": f"A {game.title} command ({key}).",
            "oneOf": list(refs),
            "discriminator": {"propertyName": "type", "mapping": mapping},
        }
    return components


def _pattern(schema: dict[str, Any], field: str, pattern: str) -> None:
    """The pattern the API checks ``field`` against (outside msgspec, to keep its own error code) added to
    the string branch of the field's schema: what the document accepts is what the API accepts."""
    prop = schema["properties"][field]
    for branch in prop.get("anyOf", [prop]):
        if branch.get("type") == "string":
            branch["pattern"] = _ecma(pattern)


def spec(games: Mapping[str, Game[Any, Any, Any, Any]]) -> dict[str, Any]:
    """The whole OpenAPI document, with the command schemas of ``games`` (the games this gateway hosts)."""
    _, components = msgspec.json.schema_components(SCHEMA_STRUCTS, ref_template="#/components/schemas/{name}")
    commands = command_schemas(games)
    components.update(commands)
    _pattern(components["SubmitCommand"], "command_id", COMMAND_ID_RE.pattern)  # checked by parse_command
    _pattern(components["CreateGame"], "game_id", ID_PATTERN)  # checked by games.checked_game_id
    submit = components["SubmitCommand"]["properties"]
    submit["command"] = {
        "description": "A command of the game's kind, exactly as /legal lists it; unknown fields are refused.",
        "oneOf": [{"$ref": f"#/components/schemas/{key}.Command"} for key in sorted(games)],
    }
    return {        "openapi": "3.1.0",
        "info": {"title": "Harbormaster gateway", "version": "1.0.0",
                 "description": "Play and watch El Capitán, Manila and East India Companies. Errors are "
                                "{error, message}; seat tokens go in 'Authorization: Bearer <token>'."},
        "paths": OPERATIONS,
        "components": {
            "schemas": components,
            "securitySchemes": {
                "seatToken": {"type": "http", "scheme": "bearer"},
                "sessionCookie": players_openapi.SESSION_SCHEME,
                "adminToken": {"type": "http", "scheme": "bearer",
                               "description": "HARBORMASTER_ADMIN_TOKEN, when the gateway has one"},
                "organiserKey": {"type": "http", "scheme": "bearer",
                                 "description": "the tournament's own organiser key, shown once by its creation"},
            },
        },
    }  # fmt: skip
