"""The OpenAPI operations of accounts, tables, chat and ratings (merged into ``openapi.py``'s document)."""

from __future__ import annotations

from typing import Any

from services.gateway.api import players_protocol as pp
from services.gateway.api import tournament_accounts as ta
from services.gateway.api.protocol import Error

SESSION: list[dict[str, list[str]]] = [{"sessionCookie": []}]
SESSION_SCHEME = {
    "type": "apiKey",
    "in": "cookie",
    "name": "hm_session",
    "description": "Set by POST /api/accounts or /api/session (HttpOnly, SameSite=Lax, Secure over https). "
    "Writes made with it must come from the gateway's own site: an Origin it serves, else no "
    "Sec-Fetch-Site naming another site (403 cross_site).",
}
_ERRORS = {
    "400": "Malformed body",
    "401": "Not signed in, or a wrong name or password",
    "403": "Sent from another site's page, or not allowed to the caller",
    "404": "No such account, table, game or game kind",
    "409": "Taken name, full or closed table, too many open tables, or too many authors muted",
    "413": "Body too large",
    "422": "A name, password, game, seat count, option, chat message or author refused (message says why)",
    "429": "Over a rate limit; Retry-After says when to try again",
    "503": "Redis is unreachable; Retry-After says when to try again",
}
RETRY = {"Retry-After": {"description": "seconds to wait", "schema": {"type": "integer", "minimum": 1}}}
TABLE_ID = {"name": "table_id", "in": "path", "required": True, "schema": {"type": "string"}}
GAME_ID = {"name": "game_id", "in": "path", "required": True,
           "schema": {"type": "string", "pattern": "^[A-Za-z0-9_.:-]{1,64}$"}}  # fmt: skip
GAME_KIND = {"name": "game", "in": "path", "required": True, "schema": {"type": "string"}}
NAME = {"name": "name", "in": "path", "required": True, "schema": {"type": "string"}}
AUTHOR = {"name": "author", "in": "path", "required": True,
          "schema": {"type": "string", "minLength": 1, "maxLength": 64}}  # fmt: skip


def _ref(struct: type) -> dict[str, Any]:
    return {"application/json": {"schema": {"$ref": f"#/components/schemas/{struct.__name__}"}}}


def op(summary: str, code: str, struct: type | None, errors: str = "", **extra: Any) -> dict[str, Any]:
    responses: dict[str, Any] = {code: {"description": summary}}
    if struct is not None:
        responses[code]["content"] = _ref(struct)
    for err in [*errors.split(), "503"]:
        responses[err] = {"description": _ERRORS[err], "content": _ref(Error)}
        if err in ("429", "503"):
            responses[err]["headers"] = RETRY
    return {"summary": summary, "responses": responses, **extra}


def body(struct: type) -> dict[str, Any]:
    return {"required": True, "content": _ref(struct)}


def _page(summary: str, parameter: dict[str, Any]) -> dict[str, Any]:
    return {"get": {"summary": summary, "parameters": [parameter],
                    "responses": {"200": {"description": "HTML", "content": {"text/html": {}}}}}}  # fmt: skip


OPERATIONS: dict[str, dict[str, Any]] = {
    "/api/accounts": {
        "post": op("Sign up (and sign in): 201 with the session cookie. Names are 2-24 letters, digits, _.- "
                   "(unique in any case); passwords 8-256 characters, hashed with Argon2id.", "201", pp.Me,
                   "400 403 409 413 422 429", requestBody=body(pp.Credentials)),
    },
    "/api/accounts/{name}": {
        "get": op("An account's page: its rating per game with history (newest first) and its games.", "200",
                  pp.AccountPage, "404", parameters=[NAME]),
    },
    "/api/session": {
        "get": op("The signed-in account; `name` is null when nobody is signed in.", "200", pp.Me,
                  security=SESSION),
        "post": op("Sign in: 200 with the session cookie. Attempts are limited per name and per address "
                   "(429).", "200", pp.Me, "400 401 403 413 429", requestBody=body(pp.Credentials)),
        "delete": op("Sign out: the session is deleted in Redis; 204.", "204", None, "403", security=SESSION),
    },
    "/api/me/games": {
        "get": op("Every game the signed-in account sits in, newest first, with whose turn it is.", "200",
                  pp.MyGames, "401", security=SESSION),
    },
    "/api/me/muted": {
        "get": op("The chat authors the signed-in account has muted, by name: the web client hides their lines "
                  "on every device the account signs in on.", "200", pp.Muted, "401", security=SESSION),
    },
    "/api/me/muted/{author}": {
        "put": op("Mute a chat author (as named beside a message) for this account only; 204. At most 200.",
                  "204", None, "401 403 409 422", parameters=[AUTHOR], security=SESSION),
        "delete": op("Unmute a chat author; 204.", "204", None, "401 403 422", parameters=[AUTHOR],
                     security=SESSION),
    },
    "/api/tables": {
        "get": op("Open tables, newest first: game, options, seats free and who is seated.", "200", pp.TableList),
        "post": op("Open a table (201); its creator takes seat 0. The game is made when every seat is taken.",
                   "201", pp.TableInfo, "400 401 403 409 413 422 429", requestBody=body(pp.OpenTable),
                   security=SESSION),
    },
    "/api/tables/{table_id}": {
        "get": op("One table; once started, `game_id` is its game.", "200", pp.TableInfo, "404",
                  parameters=[TABLE_ID]),
    },
    **{
        f"/api/tables/{{table_id}}/{verb}": {
            "post": op(text, "200", pp.TableInfo, "401 403 404 409" + (" 422" if verb != "leave" else ""),
                       parameters=[TABLE_ID], security=SESSION),
        }
        for verb, text in (("join", "Take the next free seat; taking the last one makes the game."),
                           ("leave", "Give up one's seat at an open table; its creator leaving cancels the table."),
                           ("start", "The creator makes the game with the players seated so far (at least "
                                     "the game's fewest)."))
    },
    "/api/games/{game_id}/chat": {
        "get": op("The last 200 chat messages the caller may read (a seat in a tournament game still being "
                  "played reads no spectators' message), oldest first.", "200", pp.ChatLog, "403 404",
                  parameters=[GAME_ID]),
        "post": op("Chat: a seat (token or session) in `players`, a signed-in spectator in `spectators`. At "
                   "most 300 characters; pushed as a `chat` frame on the game's sockets it may reach.", "201",
                   pp.ChatFrame, "400 401 403 404 413 422 429", requestBody=body(pp.ChatPost),
                   parameters=[GAME_ID], security=[{"seatToken": []}, *SESSION]),
    },
    "/api/leaderboards/{game}": {
        "get": op("A game's best 100 accounts by ordinal (mu - 3 sigma).", "200", pp.Leaderboard, "404",
                  parameters=[GAME_KIND]),
    },
    "/api/tournaments/{tournament_id}/account": {
        "post": op("Tie the person entrant whose key this is to the signed-in account: the tournament's games "
                   "(from the table in play now) are rated with the account's rating and listed as its games.",
                   "200", ta.EntrantClaimed, "400 401 403 404 409 413 422", requestBody=body(ta.ClaimEntrant),
                   parameters=[{"name": "tournament_id", "in": "path", "required": True,
                                "schema": {"type": "string"}}], security=SESSION),
    },
    "/leaderboards/{game}": _page("The web client's leaderboard of a game.", GAME_KIND),
    "/players/{name}": _page("The web client's page of an account: ratings, history, games.", NAME),
}  # fmt: skip

STRUCTS: tuple[Any, ...] = (
    pp.Credentials, pp.Me, pp.OpenTable, pp.TableInfo, pp.TableList, pp.MyGame, pp.MyGames, pp.ChatPost,
    pp.ChatFrame, pp.ChatLog, pp.Muted, pp.RatingRow, pp.Leaderboard, pp.GameRating, pp.AccountPage, ta.ClaimEntrant,
    ta.EntrantClaimed,
)  # fmt: skip
