"""The gateway's endpoints, each declared once with its OpenAPI 3.1 operation (``operation.Endpoint``):
``routes()`` serves them and ``spec()`` describes them, with the schemas of the wire Structs in
``protocol.py``. Tests check that responses decode as the schemas say, that each hosted game's commands
are described (``<game>.Command``), and that the documented parameter bounds are the enforced ones.
"""

from __future__ import annotations

import typing
from collections.abc import Mapping
from typing import Any

import msgspec
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route, WebSocketRoute

from domain.engine import Game
from events.ids import ID_PATTERN
from services.gateway.api import clocks_http as c
from services.gateway.api import create_http, log_http, metrics_http, players_endpoints, take_back_http
from services.gateway.api import games_http as g
from services.gateway.api import protocol as p
from services.gateway.api import tournaments_http as t
from services.gateway.api.operation import (
    GAME_ID,
    ID_SCHEMA,
    Endpoint,
    as_json,
    body,
    op,
    page,
    path_param,
    plain,
    query,
    schema_ref,
)
from services.gateway.api.requests import COMMAND_ID as COMMAND_ID_RE
from services.gateway.api.requests import MAX_INT_PARAM
from services.gateway.context import gateway_of
from services.gateway.sockets import ws
from services.tournament_service import TournamentSpec

COMMAND_ID = path_param("command_id", ID_SCHEMA)
TOKEN_Q = {"name": "token", "in": "query", "required": False, "schema": {"type": "string"},
           "description": "A seat token (instead of the Authorization header)."}  # fmt: skip
TOURNAMENT_ID = path_param("tournament_id")
BEARER: list[dict[str, list[str]]] = [{"seatToken": []}]
ORGANISER: list[dict[str, list[str]]] = [{"organiserKey": []}, {"adminToken": []}]
"""Every tournament write but creation: the tournament's own organiser key or the admin token, never none."""
MAX_SEQ = 10**18 - 1
"""``from`` on a WebSocket: at most 18 digits (``ws.SEQ``)."""


def _ecma(pattern: str) -> str:
    """A Python pattern anchored with ``\\Z`` as JSON Schema writes it (ECMA-262: ``$``)."""
    return pattern.removesuffix("\\Z") + "$"


def _int(low: int, high: int | None = None) -> dict[str, Any]:
    return {"type": "integer", "minimum": low, **({"maximum": high} if high is not None else {})}


def _submit() -> Endpoint:
    submit = op(g.submit_command, "Submit a command as the token's seat. 202 when queued; with ?wait=true 200 "
                "applied or 409 rejected (body: CommandOutcome), 409 game_finished (body: Error).", "202",
                p.Accepted, "400 401 403 404 409 413 422 429", requestBody=body(p.SubmitCommand),
                parameters=[GAME_ID, query("wait", {"type": "boolean"}, "wait for the outcome (true, 1 or yes)")],
                security=BEARER)  # fmt: skip
    responses = submit.doc["responses"]
    responses["200"] = {
        "description": "?wait=true: applied",
        "content": as_json(schema_ref(p.CommandOutcome)),
    }
    responses["409"]["content"] = as_json({"oneOf": [schema_ref(p.CommandOutcome), schema_ref(p.Error)]})
    return submit


def _socket() -> Endpoint:
    doc = {
        "summary": "WebSocket: hello, then one event frame per appended event (see ServerFrame); a seat "
                   "may send command frames (see ClientFrame). Close codes: 4400 bad request, 4401 bad "
                   "token, 4403 origin, 4404 unknown game, 4429 too many sockets (gateway or address), "
                   "1007 JSON nested too deep, 1008 over its frame budget or not reading, 1009 frame over 16 KiB, 1013 Redis unavailable.",
        "parameters": [GAME_ID, TOKEN_Q, query("from", _int(0, MAX_SEQ), "the last sequence number seen")],
        "responses": {"101": {"description": "Switching protocols; frames are ServerFrame JSON"}},
    }  # fmt: skip
    return Endpoint(ws.game_socket, doc, websocket=True)


async def openapi_json(request: Request) -> Response:
    """``GET /openapi.json``."""
    return JSONResponse(spec(gateway_of(request).games))


def _organiser(handler: Any, summary: str, request: type | None) -> Endpoint:
    """A tournament write by its organiser key or the admin token; one with a ``request`` body may also be
    refused for the body (400, 413, 422)."""
    extra = {"requestBody": body(request)} if request is not None else {}
    errors = "400 401 403 404 409 413 422" if request is not None else "401 403 404 409"
    return op(handler, f"{summary} The organiser key, or the admin token.", "200", t.TournamentInfo, errors,
              parameters=[TOURNAMENT_ID], security=ORGANISER, **extra)  # fmt: skip


ORGANISER_WRITES = (
    ("start", t.start_tournament, "Start: pair round 1 and create its games.", None),
    ("pause", t.pause_tournament, "Pause: games in play go on; no new round is paired until resumed.", None),
    ("resume", t.resume_tournament, "Resume: a round that finished meanwhile is closed and the next paired.", None),
    ("withdraw", t.withdraw_player, "Withdraw a player: never paired again, results kept, never among the winners.",
     t.WithdrawBody),
    ("adjudicate", t.adjudicate_table, "Adjudicate a table whose game has not ended: its ranking as given, with a "
     "reason; points count, ratings do not move.", t.AdjudicateBody),
    ("replace", t.replace_person, "Give a person's place to another person, mid-game too: the newcomer's key is in "
     "`people`, shown once; the old key no longer opens the seat.", t.ReplaceBody),
    ("cancel", t.cancel_tournament, "Cancel the tournament: nothing is paired or recorded after it.", t.CancelBody),
)  # fmt: skip
"""Each ``/api/tournaments/{tournament_id}/<verb>``: its handler, summary and request body (if any)."""
PAGE_OF_TOURNAMENT = "The web client's tournament page: standings, rounds, tables (live, polled every 2 s)."
PAGING = [
    query("offset", _int(0, MAX_INT_PARAM), "skip this many"),
    query("limit", _int(1, 500), "at most this many"),
]

ENDPOINTS: dict[str, dict[str, Endpoint]] = {
    "/api/games": {
        "get": op(g.list_games, "Live and finished games, newest first, paged.", "200", p.GameList, "400",
                  parameters=[query("status", {"type": "string", "enum": ["live", "finished", "all"]}, "which games"),
                              *PAGING]),
        "post": op(create_http.create_game, "Create a game; returns each human seat's secret token once.",
                   "201", p.GameCreated, "400 401 403 409 413 422 429 503", requestBody=body(p.CreateGame),
                   security=[{"adminToken": []}, {}]),
    },
    "/api/catalog": {"get": op(g.catalog, "The games this gateway hosts.", "200", p.Catalog)},
    "/api/games/{game_id}": {
        "get": op(g.get_game, "The caller's view (a spectator's without a token); ?at=SEQ for an earlier one.",
                  "200", p.GameState, "400 403 404",
                  parameters=[GAME_ID, TOKEN_Q,
                              query("at", _int(1), "the view after this event (from the end of set-up to the last seen)")]),
    },
    "/api/games/{game_id}/legal": {
        "get": op(g.legal, "The seat's legal commands; each item is exactly what may be posted as `command`.",
                  "200", None, "401 403 404", parameters=[GAME_ID, TOKEN_Q], security=BEARER),
    },
    "/api/games/{game_id}/undo": {
        "get": op(take_back_http.take_back, "Whether the seat may take back its moves now (post `{\"type\": "
                  "\"TakeBack\"}`), and with ?final=1 its legal moves that could not be taken back once played.",
                  "200", take_back_http.TakeBackNow, "401 403 404",
                  parameters=[GAME_ID, TOKEN_Q, query("final", {"type": "string", "enum": ["1"]}, "list the final moves")],
                  security=BEARER),
    },
    "/api/games/{game_id}/events": {
        "get": op(g.events, "Events after `from`, as the caller may see them (all of them once the game is over).",
                  "200", p.EventPage, "400 403 404",
                  parameters=[GAME_ID, TOKEN_Q, query("from", _int(0, MAX_INT_PARAM), "after this sequence number"),
                              query("limit", _int(1, 5000), "at most this many")]),
    },
    "/api/games/{game_id}/clock": {
        "get": op(c.game_clock, "Each seat's move clock in a tournament game with one: the limits, the last "
                  "move's time, each seat's used time and the server's now (limits null: no clock).",
                  "200", c.GameClock, "403 404", parameters=[GAME_ID, TOKEN_Q]),
    },
    "/api/games/{game_id}/commands": {"post": _submit()},
    "/api/games/{game_id}/commands/{command_id}": {
        "get": op(g.command_result, "The recorded outcome (pending until decided) of the token's seat's command: "
                  "command ids are scoped to their seat. 404 for a name that is not a command id.",
                  "200", p.CommandOutcome, "401 403 404", security=BEARER, parameters=[GAME_ID, TOKEN_Q, COMMAND_ID]),
    },
    "/ws/games/{game_id}": {"get": _socket()},
    "/api/tournaments": {
        "get": op(t.list_tournaments, "Tournaments, newest first, paged (no standings: see one tournament).",
                  "200", t.TournamentList, "400", parameters=[*PAGING]),
        "post": op(t.create_tournament, "Create a tournament (entrants — a person is one without a bot; its key "
                   "is in `people`, shown once — or players + bots taken in turn); start it with /start.",
                   "201", t.TournamentInfo, "400 401 403 409 413 422", requestBody=body(TournamentSpec),
                   security=[{"adminToken": []}, {}]),
    },
    "/api/tournaments/{tournament_id}": {
        "get": op(t.get_tournament, "A tournament: settings, progress, standings (tie-breaks and ratings) and every "
                  "round's tables with their game ids; with a person's key as bearer token, `you`: their table and "
                  "its link.", "200", t.TournamentInfo, "403 404", parameters=[TOURNAMENT_ID]),
    },
    **{
        f"/api/tournaments/{{tournament_id}}/{verb}": {"post": _organiser(handler, summary, request)}
        for verb, handler, summary, request in ORGANISER_WRITES
    },
    **players_endpoints.ENDPOINTS,  # accounts, tables, chat, ratings
    **log_http.ENDPOINTS,  # the transparency log: key, checkpoint, leaves, proofs, cosignatures, receipts
    "/healthz": {"get": op(g.healthz, "200 when Redis answers, else 503.", "200", p.Health)},
    "/metrics": {"get": plain(metrics_http.metrics, "Prometheus text format.",
                              {"description": "metrics", "content": {"text/plain": {}}})},
    "/openapi.json": {"get": plain(openapi_json, "This document.", {"description": "OpenAPI"})},
    "/": {"get": page("index.html", "The web client's lobby.")},
    "/games/{game_id}": {"get": page("game.html", "The web client's game page.", GAME_ID, name="game_page")},
    "/tournaments": {"get": page("tournaments.html", "The web client's tournament list.")},
    "/tournaments/{tournament_id}": {"get": page("tournaments.html", PAGE_OF_TOURNAMENT, TOURNAMENT_ID)},
}  # fmt: skip


def routes() -> list[BaseRoute]:
    """A route for each endpoint (the static files' mount is the app's)."""
    made: list[BaseRoute] = []
    for path, methods in ENDPOINTS.items():
        for method, endpoint in methods.items():
            if endpoint.websocket:
                made.append(WebSocketRoute(path, endpoint.handler))
            else:
                made.append(Route(path, endpoint.handler, methods=[method.upper()], name=endpoint.name))
    return made


SCHEMA_STRUCTS: tuple[Any, ...] = (
    p.Error, p.CreateGame, p.SeatGrant, p.GameCreated, p.SubmitCommand, p.Accepted, p.CommandOutcome,
    p.GameSummary, p.GameList, p.GameState, p.EventItem, p.EventPage, p.CatalogGame, p.Catalog, p.Health,
    p.ServerFrame, p.ClientFrame, TournamentSpec, t.TournamentInfo, t.TournamentList, c.GameClock,
    t.WithdrawBody, t.CancelBody, t.AdjudicateBody, t.ReplaceBody, take_back_http.TakeBackNow,
    *players_endpoints.STRUCTS,
    *log_http.STRUCTS,
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
    components.update(command_schemas(games))
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
        "paths": {path: {m: e.doc for m, e in methods.items()} for path, methods in ENDPOINTS.items()},
        "components": {
            "schemas": components,
            "securitySchemes": {
                "seatToken": {"type": "http", "scheme": "bearer"},
                "sessionCookie": players_endpoints.SESSION_SCHEME,
                "adminToken": {"type": "http", "scheme": "bearer",
                               "description": "HARBORMASTER_ADMIN_TOKEN, when the gateway has one"},
                "organiserKey": {"type": "http", "scheme": "bearer",
                                 "description": "the tournament's own organiser key, shown once by its creation"},
            },
        },
    }  # fmt: skip
