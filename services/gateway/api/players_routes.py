"""The routes of accounts, tables, chat and ratings (issue 35), and their web pages."""

from __future__ import annotations

from pathlib import Path

from starlette.requests import Request
from starlette.responses import FileResponse, Response
from starlette.routing import BaseRoute, Route

from services.gateway.api import accounts_http, chat_http, ratings_http, tables_http, tournament_accounts

STATIC = Path(__file__).parent.parent / "static"


async def leaderboard_page(request: Request) -> Response:
    """A game's leaderboard (``static/js/players.js`` draws it)."""
    return FileResponse(STATIC / "players.html")


async def account_view(request: Request) -> Response:
    """An account's page: ratings, history, games (``static/js/players.js``)."""
    return FileResponse(STATIC / "players.html")


def player_routes() -> list[BaseRoute]:
    return [
        Route("/api/accounts", accounts_http.sign_up, methods=["POST"]),
        Route("/api/accounts/{name}", ratings_http.account_page, methods=["GET"]),
        Route("/api/session", accounts_http.me, methods=["GET"]),
        Route("/api/session", accounts_http.sign_in, methods=["POST"]),
        Route("/api/session", accounts_http.sign_out, methods=["DELETE"]),
        Route("/api/me/games", tables_http.my_games, methods=["GET"]),
        Route("/api/me/muted", chat_http.list_muted, methods=["GET"]),
        Route("/api/me/muted/{author}", chat_http.mute_author, methods=["PUT"]),
        Route("/api/me/muted/{author}", chat_http.unmute_author, methods=["DELETE"]),
        Route("/api/tables", tables_http.list_tables, methods=["GET"]),
        Route("/api/tables", tables_http.open_table, methods=["POST"]),
        Route("/api/tables/{table_id}", tables_http.get_table, methods=["GET"]),
        Route("/api/tables/{table_id}/join", tables_http.join_table, methods=["POST"]),
        Route("/api/tables/{table_id}/leave", tables_http.leave_table, methods=["POST"]),
        Route("/api/tables/{table_id}/start", tables_http.start_table, methods=["POST"]),
        Route("/api/games/{game_id}/chat", chat_http.list_chat, methods=["GET"]),
        Route("/api/games/{game_id}/chat", chat_http.post_chat, methods=["POST"]),
        Route("/api/leaderboards/{game}", ratings_http.leaderboard, methods=["GET"]),
        Route(
            "/api/tournaments/{tournament_id}/account", tournament_accounts.claim_entrant, methods=["POST"]
        ),
        Route("/leaderboards/{game}", leaderboard_page, methods=["GET"]),
        Route("/players/{name}", account_view, methods=["GET"]),
    ]
