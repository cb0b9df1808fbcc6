"""The endpoints of accounts, tables, chat and ratings, and their web pages (part of ``openapi.ENDPOINTS``)."""

from __future__ import annotations

from typing import Any

from services.gateway.api import accounts_http as a
from services.gateway.api import (
    chat_http,
    linked_games,
    presence_http,
    ratings_http,
    rematch_http,
    seat_http,
    table_chat,
    tables_http,
)
from services.gateway.api import credentials_http as cr
from services.gateway.api import players_protocol as pp
from services.gateway.api import tournament_accounts as ta
from services.gateway.api.operation import GAME_ID, SESSION, Endpoint, body, op, page, path_param

SESSION_SCHEME = {
    "type": "apiKey",
    "in": "cookie",
    "name": "hm_session",
    "description": "Set by POST /api/accounts or /api/session (HttpOnly, SameSite=Lax, Secure over https). "
    "Writes made with it must come from the gateway's own site: an Origin it serves, else no "
    "Sec-Fetch-Site naming another site (403 cross_site).",
}
TABLE_ID = path_param("table_id")
GAME_KIND = path_param("game")
NAME = path_param("name")
AUTHOR = path_param("author", {"type": "string", "minLength": 1, "maxLength": 64})
TABLE_VERBS = (
    (tables_http.join_table, "join", "Take the next free seat; taking the last one makes the game."),
    (tables_http.leave_table, "leave", "Give up one's seat at an open table; its creator leaving cancels the table."),
    (tables_http.start_table, "start", "The creator makes the game with the players seated so far (at least the "
                                       "game's fewest)."),
)  # fmt: skip

ENDPOINTS: dict[str, dict[str, Endpoint]] = {
    "/api/accounts": {
        "post": op(a.sign_up, "Sign up (and sign in): 201 with the session cookie. Names are 2-24 letters, "
                   "digits, _.- (unique in any case); passwords 8-256 characters, hashed with Argon2id.", "201",
                   pp.Me, "400 403 409 413 422 429", requestBody=body(pp.Credentials)),
    },
    "/api/accounts/{name}": {
        "get": op(ratings_http.account_page, "An account's page: its rating per game with history (newest first) "
                  "and its games.", "200", pp.AccountPage, "404", parameters=[NAME]),
    },
    "/api/session": {
        "get": op(a.me, "The signed-in account; `name` is null when nobody is signed in.", "200", pp.Me,
                  security=SESSION),
        "post": op(a.sign_in, "Sign in: 200 with the session cookie. Attempts are limited per name and per "
                   "address (429).", "200", pp.Me, "400 401 403 413 429", requestBody=body(pp.Credentials)),
        "delete": op(a.sign_out, "Sign out: the session is deleted in Redis and the game sockets it opened are "
                     "closed (4401); 204.", "204", None, "403", security=SESSION),
    },
    "/api/me/password": {
        "put": op(cr.change_password, "Change the password: the current one is required; every other session of "
                  "the account is signed out (and its sockets closed), this one stays; 204. At most 5 tries a "
                  "minute.", "204", None, "400 401 403 409 413 422 429", requestBody=body(cr.PasswordChange),
                  security=SESSION),
    },
    "/api/me/sessions": {
        "delete": op(cr.sign_out_everywhere, "Sign out everywhere: every session of the account ends, this one "
                     "too, and the game sockets they opened are closed; 204.", "204", None, "401 403",
                     security=SESSION),
    },
    "/api/me/games": {
        "get": op(tables_http.my_games, "Every game the signed-in account sits in, newest first, with whose turn "
                  "it is.", "200", pp.MyGames, "401", security=SESSION),
    },
    "/api/me/muted": {
        "get": op(chat_http.list_muted, "The chat authors the signed-in account has muted, by name: the web client "
                  "hides their lines on every device the account signs in on.", "200", pp.Muted, "401",
                  security=SESSION),
    },
    "/api/me/muted/{author}": {
        "put": op(chat_http.mute_author, "Mute a chat author (as named beside a message) for this account only; "
                  "204. At most 200.", "204", None, "401 403 409 422", parameters=[AUTHOR], security=SESSION),
        "delete": op(chat_http.unmute_author, "Unmute a chat author; 204.", "204", None, "401 403 422",
                     parameters=[AUTHOR], security=SESSION),
    },
    "/api/tables": {
        "get": op(tables_http.list_tables, "Open tables, newest first: game, options, seats free and who is seated.",
                  "200", pp.TableList),
        "post": op(tables_http.open_table, "Open a table (201); its creator takes seat 0. The game is made when "
                   "every seat is taken.", "201", pp.TableInfo, "400 401 403 409 413 422 429",
                   requestBody=body(pp.OpenTable), security=SESSION),
    },
    "/api/tables/{table_id}": {
        "get": op(tables_http.get_table, "One table; once started, `game_id` is its game.", "200", pp.TableInfo,
                  "404", parameters=[TABLE_ID]),
    },
    **{
        f"/api/tables/{{table_id}}/{verb}": {
            "post": op(handler, text, "200", pp.TableInfo, "401 403 404 409" + (" 422" if verb != "leave" else ""),
                       parameters=[TABLE_ID], security=SESSION),
        }
        for handler, verb, text in TABLE_VERBS
    },
    "/api/games/{game_id}/resign": {
        "post": op(seat_http.resign_game, "Resign one's seat (seat token or session) of a table's game: a stand-in "
                   "bot plays it to the end, and the rating places it last (a loss). 409 for a game no table made, "
                   "a finished one or a bot's seat.", "200", pp.Resigned, "401 403 404 409",
                   parameters=[GAME_ID], security=[{"seatToken": []}, *SESSION]),
    },
    "/api/games/{game_id}/take-back": {
        "post": op(seat_http.take_back_seat, "Take one's seat (seat token or session) back from the stand-in bot "
                   "the table's clock handed it to (the event SeatTakenBack). 409 when no bot plays it, or it was "
                   "resigned.", "200", seat_http.SeatDone, "401 403 404 409", parameters=[GAME_ID],
                   security=[{"seatToken": []}, *SESSION]),
    },
    "/api/games/{game_id}/vote": {
        "post": op(seat_http.vote_to_end, "One's vote in the open vote to end a table's game whose player ran out "
                   "of time (a majority of the players present ends it, the absent seat last). 409 with no vote "
                   "open, for a seat that does not vote or voted already.", "200", seat_http.SeatDone,
                   "401 403 404 409 422", parameters=[GAME_ID], security=[{"seatToken": []}, *SESSION],
                   requestBody=body(seat_http.Vote)),
    },
    "/api/tables/{table_id}/chat": {
        "get": op(table_chat.list_table_chat, "The chat at an open table before its game starts (its seated "
                  "accounts only), oldest first.", "200", pp.ChatLog, "401 403 404", parameters=[TABLE_ID],
                  security=SESSION),
        "post": op(table_chat.post_table_chat, "Chat at an open table (a seated account): at most 300 characters, "
                   "the game chat's limits; 409 once the game started.", "201", pp.ChatFrame,
                   "400 401 403 404 409 413 422 429", requestBody=body(pp.ChatPost), parameters=[TABLE_ID],
                   security=SESSION),
    },
    "/api/games/{game_id}/mine": {
        "post": op(linked_games.remember, "The signed-in account keeps the bearer token's seat of a game made by "
                   "links in its My games (unrated).", "200", linked_games.Linked, "401 403 404 409",
                   parameters=[GAME_ID], security=[{"seatToken": []}, *SESSION]),
    },
    "/api/games/{game_id}/rematch": {
        "get": op(rematch_http.get_rematch, "The rematch table proposed after this game, if any (its players' end "
                  "screens offer it).", "200", rematch_http.Rematch, "404", parameters=[GAME_ID]),
        "post": op(rematch_http.propose, "A player of a finished table game opens its rematch: a private table "
                   "with the same game, seats, options, clock and bots, the proposer seated; one a game (a second "
                   "proposal is given the first's table).", "200", rematch_http.Rematch, "401 403 404 409",
                   parameters=[GAME_ID], security=SESSION),
    },
    "/api/games/{game_id}/presence": {
        "get": op(presence_http.presence, "Each seat's presence from its pages' beats: `online`, `away` (hidden, or "
                  "a beat late) or `offline` (none for 20 s).", "200", presence_http.Presence, "404",
                  parameters=[GAME_ID]),
        "put": op(presence_http.beat, "The caller's seat is there (`online`) or its page hidden (`away`); pages "
                  "send it every 5 s; 204.", "204", None, "400 401 403 404 413 422", parameters=[GAME_ID],
                  requestBody=body(presence_http.Beat), security=[{"seatToken": []}, *SESSION]),
    },
    "/api/games/{game_id}/ratings": {
        "get": op(ratings_http.game_ratings, "What a finished game did to its accounts' ratings (its end screen): "
                  "`rated` with each account's place and number before and after, `pending`, or `unrated` and why.",
                  "200", pp.GameRatings, "404", parameters=[GAME_ID]),
    },
    "/api/games/{game_id}/chat": {
        "get": op(chat_http.list_chat, "The last 200 chat messages, oldest first; the same for every reader: "
                  "spectators' messages of a tournament game still being played are listed for nobody until it "
                  "ends.", "200", pp.ChatLog,
                  "403 404", parameters=[GAME_ID]),
        "post": op(chat_http.post_chat, "Chat: a seat (token or session) in `players`, a signed-in spectator in "
                   "`spectators`. At most 300 characters; pushed as a `chat` frame on the game's sockets it may "
                   "reach.", "201", pp.ChatFrame, "400 401 403 404 413 422 429", requestBody=body(pp.ChatPost),
                   parameters=[GAME_ID], security=[{"seatToken": []}, *SESSION]),
    },
    "/api/leaderboards/{game}": {
        "get": op(ratings_http.leaderboard, "A game's first 100 accounts: established ones (10 rated games) first, each by its "
                  "number, 1500 + 40 (mu - 25).", "200",
                  pp.Leaderboard, "404", parameters=[GAME_KIND]),
    },
    "/api/tournaments/{tournament_id}/account": {
        "post": op(ta.claim_entrant, "Tie the person entrant whose key this is to the signed-in account: the "
                   "tournament's games (from the table in play now) are rated with the account's rating and listed "
                   "as its games.", "200", ta.EntrantClaimed, "400 401 403 404 409 413 422",
                   requestBody=body(ta.ClaimEntrant), parameters=[path_param("tournament_id")], security=SESSION),
    },
    "/leaderboards/{game}": {"get": page("players.html", "The web client's leaderboard of a game.", GAME_KIND)},
    "/players/{name}": {
        "get": page("players.html", "The web client's page of an account: ratings, history, games.", NAME),
    },
}  # fmt: skip

STRUCTS: tuple[Any, ...] = (
    pp.Credentials, pp.Me, pp.OpenTable, pp.TableInfo, pp.TableList, pp.MyGame, pp.MyGames, pp.ChatPost,
    pp.ChatFrame, pp.ChatLog, pp.Muted, pp.RatingRow, pp.Leaderboard, pp.GameRating, pp.RatedGame,
    pp.GameRatings, pp.AccountPage, ta.ClaimEntrant, ta.EntrantClaimed, cr.PasswordChange, pp.Resigned,
    presence_http.Beat, presence_http.Presence, rematch_http.Rematch, linked_games.Linked, seat_http.Vote,
    seat_http.SeatDone,
)  # fmt: skip
