"""``/api/accounts`` and ``/api/session``: sign up, sign in, sign out, and who is signed in.

Sign-in (and sign-up) attempts are counted per account name and address and per address in Redis (so
every gateway counts them together) and refused with 429 and ``Retry-After`` beyond their windows, and a
name under attack is tried only from addresses that signed in to it before
(``services/gateway/access/signin_guard.py``); a password reaches nothing but Argon2id
(``services/players/accounts.py``): it is neither stored nor logged, and past the hashers' queue a sign-in
is refused at once (503 ``busy``).
"""

from __future__ import annotations

import time

import structlog
from starlette.requests import Request
from starlette.responses import Response

from domain.engine import RuleViolation
from services.gateway.access import revocation, signin_guard
from services.gateway.access.sessions import (
    account_of,
    clear_session_cookie,
    players_of,
    same_site,
    session_secret,
    set_session_cookie,
)
from services.gateway.api.players_protocol import Credentials, Me
from services.gateway.api.requests import ApiError, decode_body, json_response, read_body, too_many
from services.gateway.context import client_address, gateway_of
from services.players import accounts

log = structlog.get_logger("accounts")


def require_same_site(request: Request) -> None:
    """Refuse a write sent by another site's page (403), before anything is read or done."""
    if not same_site(request):
        raise ApiError(403, "cross_site", "this request came from another site's page")


async def require_account(request: Request) -> str:
    """The signed-in account, or 401."""
    account = await account_of(request)
    if account is None:
        raise ApiError(401, "not_signed_in", "sign in first (POST /api/session)")
    return account


async def _attempt(request: Request, by_name: bool) -> tuple[Credentials, bool]:
    """The credentials of a sign-up or sign-in sent from this site's own page, the attempt counted from this
    address (and, ``by_name``, on this name from this address: ``signin_guard.py``); 429 when over a window.
    Also whether the address signed in to that account before (it may use the hashers' kept places)."""
    require_same_site(request)
    body = decode_body(await read_body(request), Credentials)
    if players_of(request).hashing.full(known=True):  # before the windows' round trip: refusals cost little
        raise busy(accounts.HashingBusy("every password hasher is busy; retry shortly"))
    name = body.name if by_name else None
    redis, settings = gateway_of(request).redis, players_of(request).settings
    admitted = await signin_guard.admit(redis, settings, name, client_address(request), time.time())
    if admitted.wait_s > 0:
        log.info("signin_throttled", who=admitted.over)
        raise too_many(f"sign-in attempts {admitted.over}", admitted.wait_s)
    return body, admitted.known


def busy(exc: accounts.HashingBusy) -> ApiError:
    """Every hasher busy and the queue full: 503 at once, rather than every sign-in waiting longer."""
    return ApiError(503, "busy", str(exc), {"Retry-After": "1"})


async def sign_up(request: Request) -> Response:
    """``POST /api/accounts``: make an account and sign it in (201, with the session cookie)."""
    body, _ = await _attempt(request, by_name=False)
    try:
        name = await accounts.sign_up(
            gateway_of(request).redis, players_of(request).hashing, body.name, body.password
        )
    except accounts.HashingBusy as exc:
        raise busy(exc) from exc
    except RuleViolation as exc:
        raise ApiError(422, exc.code, exc.message) from exc
    except accounts.AccountError as exc:
        raise ApiError(409, exc.code, exc.message) from exc
    await signin_guard.succeeded(gateway_of(request).redis, name, client_address(request))
    return await _signed_in(request, name, 201)


async def sign_in(request: Request) -> Response:
    """``POST /api/session``: check the password and open a session (200, with the session cookie)."""
    body, known = await _attempt(request, by_name=True)
    redis, address = gateway_of(request).redis, client_address(request)
    try:
        name = await accounts.verify(redis, players_of(request).hashing, body.name, body.password, known)
    except accounts.HashingBusy as exc:
        raise busy(exc) from exc
    except accounts.AccountError as exc:
        log.info("signin_refused", address=address)
        await signin_guard.failed(redis, body.name, time.time())
        raise ApiError(401, exc.code, exc.message) from exc
    await signin_guard.succeeded(redis, name, address)
    return await _signed_in(request, name, 200)


async def _signed_in(request: Request, name: str, status: int) -> Response:
    secret = await accounts.open_session(gateway_of(request).redis, name)
    response = json_response(Me(name=name), status)
    set_session_cookie(response, request, secret)
    log.info("signed_in", account=name)
    return response


async def sign_out(request: Request) -> Response:
    """``DELETE /api/session``: the session is deleted in Redis (the cookie is worth nothing after), and the
    game sockets it opened are closed."""
    require_same_site(request)
    secret = session_secret(request)
    if secret is not None:
        redis = gateway_of(request).redis
        await accounts.close_session(redis, secret)
        # and its sockets, here at once, elsewhere within moments (finding 14: they kept playing)
        await revocation.revoke(redis, request.app.state, [accounts.session_digest(secret)])
    response = Response(status_code=204)
    clear_session_cookie(response, request)
    return response


async def me(request: Request) -> Response:
    """``GET /api/session``: the signed-in account; ``name`` is null when nobody is (200 either way: asking
    is not an error, and a page asks before anyone signs in)."""
    account = await account_of(request)
    name = await accounts.exists(gateway_of(request).redis, account) if account is not None else None
    return json_response(Me(name=name))
