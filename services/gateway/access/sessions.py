"""Who a browser is: the session cookie, the account it belongs to, the seat that account holds in a game,
and the check that keeps other sites from writing with that cookie.

The cookie (``hm_session``) is HttpOnly (no script reads it), SameSite=Lax (a cross-site POST carries no
cookie in browsers that honour it) and Secure over https. Writes made with it must also pass ``same_site``:
an ``Origin`` the gateway serves (the same check as a game WebSocket's, ``origins.py``), or, from a client
that sends no ``Origin``, no ``Sec-Fetch-Site`` saying it comes from another site.
"""

from __future__ import annotations

from typing import Any, Protocol

from starlette.requests import HTTPConnection, Request
from starlette.responses import Response

from services.config import Settings
from services.gateway.access.limits import RateLimiter
from services.gateway.access.origins import Origins
from services.players import accounts
from services.players.settings import PlayerSettings
from workers.jobs.account_ratings import seat_accounts_key

COOKIE = "hm_session"


class Shared(Protocol):
    """What sessions read of the gateway's shared state (``context.Gateway``), named here: the access layer
    sits below the context that holds it."""

    @property
    def redis(self) -> Any: ...

    @property
    def origins(self) -> Origins: ...

    @property
    def settings(self) -> Settings: ...


def _shared(connection: HTTPConnection) -> Shared:
    """The shared state of the app serving this request or WebSocket (what ``context.gateway_of`` returns)."""
    gateway: Shared = connection.app.state.gateway
    return gateway


class PlayersState:
    """What one gateway keeps for accounts and chat: settings, and the chat rate limiter per author and game
    (the one per address is shared by every gateway: ``shared_buckets.py``)."""

    def __init__(self, settings: PlayerSettings) -> None:
        self.settings = settings
        self.chat = RateLimiter(settings.chat_per_second, settings.chat_burst_seconds)
        self.hashing = accounts.Hashing(settings.hashing_queue)


def players_of(connection: HTTPConnection) -> PlayersState:
    """This app's players' state, made on first use with the gateway's settings (``Settings.players``)."""
    state = connection.app.state
    players: PlayersState | None = getattr(state, "players", None)
    if players is None:
        players = state.players = PlayersState(_shared(connection).settings.players)
    return players


def session_secret(connection: HTTPConnection) -> str | None:
    """The session cookie, read from the raw header (a WebSocket's headers are read once, here too)."""
    for key, value in connection.scope["headers"]:
        if key == b"cookie":
            for part in value.decode("latin-1").split(";"):
                name, _, secret = part.strip().partition("=")
                if name == COOKIE and secret:
                    return str(secret)
    return None


async def account_of(connection: HTTPConnection) -> str | None:
    """The signed-in account (its name in lower case), or None."""
    return await accounts.session_account(_shared(connection).redis, session_secret(connection))


async def session_seat(gateway: Shared, connection: HTTPConnection, game_id: str) -> int | None:
    """The seat the signed-in account holds in this game, or None (not signed in, or not seated there)."""
    secret = session_secret(connection)
    if secret is None:
        return None
    account = await accounts.session_account(gateway.redis, secret)
    if account is None:
        return None
    raw = await gateway.redis.hget(seat_accounts_key(game_id), f"a:{account}")
    return int(raw) if raw is not None else None


def same_site(request: Request) -> bool:
    """Whether a cookie-authenticated write may be taken: not sent by another site's page."""
    gateway = _shared(request)
    origin = request.headers.get("origin")
    if origin is not None:
        return origin != "null" and gateway.origins.allows(origin, request.scope.get("server"))
    return request.headers.get("sec-fetch-site", "same-origin") in ("same-origin", "none")


def secure(request: Request) -> bool:
    """Whether the cookie gets ``Secure``: served over https, an https public address, or configured."""
    public = _shared(request).settings.public_url or ""
    return (
        players_of(request).settings.secure_cookies
        or request.url.scheme == "https"
        or public.startswith("https:")
    )


def set_session_cookie(response: Response, request: Request, secret: str) -> None:
    response.set_cookie(
        COOKIE,
        secret,
        max_age=accounts.SESSION_TTL_S,
        path="/",
        httponly=True,
        samesite="lax",
        secure=secure(request),
    )


def clear_session_cookie(response: Response, request: Request) -> None:
    response.delete_cookie(COOKIE, path="/", httponly=True, samesite="lax", secure=secure(request))
