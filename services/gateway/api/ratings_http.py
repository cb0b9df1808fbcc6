"""``/api/leaderboards/{game}``, ``/api/accounts/{name}`` and ``/api/games/{game_id}/ratings``: ratings by
game, an account's page (its games, results and rating history), and what one game did to its accounts'
ratings (its end screen). The number shown and when it is provisional: ``domain/players/rating_rules.py``."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from domain.players import rating_rules as rules
from domain.players.rules import NAME, name_key
from events import keys
from events.store import meta_from_hash, queue_meta_read
from services.gateway.api.players_protocol import (
    AccountPage,
    GameRating,
    GameRatings,
    Leaderboard,
    RatedGame,
    RatingRow,
)
from services.gateway.api.requests import ApiError, json_response
from services.gateway.api.tables_http import display_names, games_of
from services.gateway.context import gateway_of
from services.players import ratings
from workers.jobs.account_ratings import RatingChange, seat_accounts_key

GAME_ID_MAX = 128
"""Longer is no game id of ours: refused before Redis is asked."""


async def leaderboard(request: Request) -> Response:
    """``GET /api/leaderboards/{game}``: the best accounts of a game, established ones first."""
    gateway = gateway_of(request)
    key = request.path_params["game"]
    game = gateway.games.get(key)
    if game is None:
        raise ApiError(404, "unknown_game_type", f"unknown game {key!r}; see /api/catalog")
    board = await ratings.leaderboard(gateway.redis, key)
    shown = await display_names(gateway.redis, [r.account for r in board])
    rows = [
        RatingRow(
            rank=i + 1,
            name=name,
            rating=rules.shown(r.rating),
            games=r.games,
            provisional=r.games < rules.PROVISIONAL_GAMES,
            mu=r.rating.mu,
            sigma=r.rating.sigma,
            ordinal=r.rating.ordinal,
        )
        for i, (name, r) in enumerate(zip(shown, board, strict=True))
    ]
    return json_response(
        Leaderboard(game=key, title=game.title, rows=rows, provisional_games=rules.PROVISIONAL_GAMES)
    )


def rated_game(name: str, change: RatingChange) -> RatedGame:
    """One history entry as the wire shows it (a version 1 entry has no game count: counted provisional)."""
    before, after = rules.shown(change.before), rules.shown(change.after)
    return RatedGame(
        game_id=change.game_id,
        account=name,
        place=change.place,
        players=change.players,
        tied=change.tied,
        abandoned=change.abandoned,
        weight=change.weight,
        before=before,
        after=after,
        change=after - before,
        provisional=change.games < rules.PROVISIONAL_GAMES,
        rules=change.rules,
        mu_before=change.before.mu,
        sigma_before=change.before.sigma,
        mu_after=change.after.mu,
        sigma_after=change.after.sigma,
        ts_ms=change.ts_ms,
    )


async def account_page(request: Request) -> Response:
    """``GET /api/accounts/{name}``: an account's ratings with their history, and the games it sits in."""
    gateway = gateway_of(request)
    name = request.path_params["name"]
    account = name_key(name)
    raw = await gateway.redis.hmget(keys.account(account), "name", "created_ms") if NAME.match(name) else None
    if not raw or raw[0] is None:
        raise ApiError(404, "unknown_account", f"no account {name!r}")
    shown_name = raw[0].decode()
    rated = []
    for key in sorted(gateway.games):
        found = await ratings.rating_of(gateway.redis, key, account)
        if found is not None:
            r, history = found
            rated.append(
                GameRating(
                    game=key,
                    rating=r.rating,
                    shown=rules.shown(r.rating),
                    games=r.games,
                    provisional=r.games < rules.PROVISIONAL_GAMES,
                    ordinal=r.rating.ordinal,
                    history=[rated_game(shown_name, h) for h in history],
                )
            )
    return json_response(
        AccountPage(
            name=shown_name,
            created_ms=int(raw[1] or 0),
            ratings=rated,
            games=await games_of(gateway, account),
        )
    )


async def game_ratings(request: Request) -> Response:
    """``GET /api/games/{game_id}/ratings``: what the game did to its accounts' ratings (public, as the
    accounts' pages are), best place first."""
    gateway = gateway_of(request)
    game_id = request.path_params["game_id"]
    pipe = gateway.redis.pipeline(transaction=False)
    queue_meta_read(pipe, game_id[:GAME_ID_MAX])
    pipe.hget(seat_accounts_key(game_id[:GAME_ID_MAX]), "rated")
    meta_raw, position, rated = await pipe.execute()
    if len(game_id) > GAME_ID_MAX or not meta_raw or b"header" not in meta_raw:
        raise ApiError(404, "unknown_game", f"no game {game_id!r}")
    meta = meta_from_hash(meta_raw, position)
    if rated != b"1":
        return json_response(GameRatings(game_id=game_id, status="unrated", reason="not a rated game"))
    changes, unrated = await ratings.game_changes(gateway.redis, meta.header.game, game_id)
    if unrated is not None:
        return json_response(GameRatings(game_id=game_id, status="unrated", reason=unrated))
    if not changes:
        return json_response(GameRatings(game_id=game_id, status="pending"))
    accounts = sorted(changes, key=lambda a: (changes[a].place, a))
    names = await display_names(gateway.redis, accounts)
    rows = [rated_game(n, changes[a]) for n, a in zip(names, accounts, strict=True)]
    return json_response(GameRatings(game_id=game_id, status="rated", changes=rows))
