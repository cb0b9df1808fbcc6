"""``PUT /api/me/password`` and ``DELETE /api/me/sessions``: change one's password (the old one required;
every other session signed out) and sign out everywhere (every session, this one too). The sockets opened
with the sessions ended are cut off (``access/revocation.py``)."""

from __future__ import annotations

import time

import msgspec
import structlog
from starlette.requests import Request
from starlette.responses import Response

from domain.engine import RuleViolation
from domain.players.rules import name_key
from domain.players.throttle import Window
from events import keys
from services.gateway.access import revocation
from services.gateway.access.sessions import clear_session_cookie, players_of, session_secret
from services.gateway.api.accounts_http import busy, require_account, require_same_site
from services.gateway.api.requests import ApiError, decode_body, read_body, too_many
from services.gateway.context import gateway_of
from services.players import accounts, credentials

log = structlog.get_logger("accounts")

CHANGES_PER_MINUTE = 5
"""Password changes tried a minute per account: each costs two Argon2 hashes, and a wrong old password is
a guess at it by whoever holds the session (counted apart from sign-ins, so that it locks no one out)."""


class PasswordChange(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """``PUT /api/me/password``: the account's password now, and the new one (8-256 characters, not the
    account's name)."""

    password: str
    new_password: str


async def change_password(request: Request) -> Response:
    """``PUT /api/me/password``: 204; every other session of the account is signed out, this one stays."""
    require_same_site(request)
    account = await require_account(request)
    body = decode_body(await read_body(request), PasswordChange)
    redis = gateway_of(request).redis
    throttle = keys.password_change(name_key(account))
    if (
        wait_s := await accounts.throttle_wait(redis, throttle, Window(CHANGES_PER_MINUTE, 60.0), time.time())
    ) > 0:
        raise too_many("password changes for this account", wait_s)
    secret = session_secret(request)
    keep = accounts.session_digest(secret) if secret else None
    hashing = players_of(request).hashing
    try:
        ended = await credentials.change_password(
            redis, hashing, account, body.password, body.new_password, keep
        )
    except accounts.HashingBusy as exc:
        raise busy(exc) from exc
    except RuleViolation as exc:
        raise ApiError(422, exc.code, exc.message) from exc
    except accounts.AccountError as exc:
        raise ApiError(403 if exc.code == "bad_credentials" else 409, exc.code, exc.message) from exc
    await revocation.revoke(redis, request.app.state, ended)
    log.info("password_changed", account=account, sessions_ended=len(ended))
    return Response(status_code=204)


async def sign_out_everywhere(request: Request) -> Response:
    """``DELETE /api/me/sessions``: every session of the account ends, this one too; 204."""
    require_same_site(request)
    account = await require_account(request)
    redis = gateway_of(request).redis
    ended = await credentials.end_sessions(redis, account)
    await revocation.revoke(redis, request.app.state, ended)
    log.info("signed_out_everywhere", account=account, sessions_ended=len(ended))
    response = Response(status_code=204)
    clear_session_cookie(response, request)
    return response
