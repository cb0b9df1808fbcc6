"""``/api/leaderboards/{game}`` and ``/api/accounts/{name}``: ratings by game, and an account's page (its
games, results and rating history)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from domain.players.rules import NAME, name_key
from services.gateway.api.players_protocol import AccountPage, GameRating, Leaderboard, RatingRow
from services.gateway.api.requests import ApiError, json_response
from services.gateway.api.tables_http import display_names, games_of
from services.gateway.context import gateway_of
from services.players import ratings


async def leaderboard(request: Request) -> Response:
    """``GET /api/leaderboards/{game}``: the best accounts of a game, by ordinal (mu - 3 sigma)."""
    gateway = gateway_of(request)
    key = request.path_params["game"]
    game = gateway.games.get(key)
    if game is None:
        raise ApiError(404, "unknown_game_type", f"unknown game {key!r}; see /api/catalog")
    board = await ratings.leaderboard(gateway.redis, key)
    shown = await display_names(gateway.redis, [account for account, _ in board])
    rows = [
        RatingRow(rank=i + 1, name=name, mu=r.mu, sigma=r.sigma, ordinal=r.ordinal)
        for i, (name, (_, r)) in enumerate(zip(shown, board, strict=True))
    ]
    return json_response(Leaderboard(game=key, title=game.title, rows=rows))


async def account_page(request: Request) -> Response:
    """``GET /api/accounts/{name}``: an account's ratings with their history, and the games it sits in."""
    gateway = gateway_of(request)
    name = request.path_params["name"]
    account = name_key(name)
    raw = (
        await gateway.redis.hmget(f"hm:account:{account}", "name", "created_ms") if NAME.match(name) else None
    )
    if not raw or raw[0] is None:
        raise ApiError(404, "unknown_account", f"no account {name!r}")
    rated = []
    for key in sorted(gateway.games):
        found = await ratings.rating_of(gateway.redis, key, account)
        if found is not None:
            rating, history = found
            rated.append(GameRating(game=key, rating=rating, ordinal=rating.ordinal, history=history))
    return json_response(
        AccountPage(
            name=raw[0].decode(),
            created_ms=int(raw[1] or 0),
            ratings=rated,
            games=await games_of(gateway, account),
        )
    )
