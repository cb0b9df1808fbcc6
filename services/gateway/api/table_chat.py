"""Chat at a table before its game starts (issue 44.10): ``POST /api/tables/{id}/chat`` and ``GET``, for the
accounts seated at an open table only (the lobby's *Table chat* panel). Once the game is made the game
page's chat takes over; this one is kept a day with the table (``tables.CLOSED_TTL_S``) and then goes.

A stream per table, ``hm:table:<id>:chat``, trimmed to ``KEEP``; the same limits as the game chat: the
rules' text check, one allowance per author and table in this gateway, and the per-address bucket shared
by every gateway (``shared_buckets``).
"""

from __future__ import annotations

import time

from starlette.requests import Request
from starlette.responses import Response

from domain.engine import RuleViolation
from domain.players.rules import checked_chat
from services.gateway.access import shared_buckets
from services.gateway.access.sessions import players_of
from services.gateway.api.accounts_http import require_account, require_same_site
from services.gateway.api.players_protocol import ChatFrame, ChatLog, ChatPost
from services.gateway.api.requests import ApiError, decode_body, json_response, read_body, too_many
from services.gateway.context import Gateway, client_address, gateway_of
from services.players import tables
from services.players.chat import stored_message
from services.players.table_start import display_names
from services.players.tables import Table

KEEP = 100
"""Messages kept per table: a table waits minutes, not days."""
SHOWN = 50


def chat_key(table_id: str) -> str:
    return f"{tables.table_key(table_id)}:chat"


async def _seated_at(request: Request) -> tuple[Gateway, Table, str, int]:
    """The path's table, the signed-in account and its seat (403 for an account not seated there)."""
    account = await require_account(request)
    gateway = gateway_of(request)
    table = await tables.load(gateway.redis, request.path_params["table_id"])
    if table is None:
        raise ApiError(404, "unknown_table", "no such table")
    if account not in table.seated:
        raise ApiError(403, "not_seated", "only the players seated at a table chat there")
    return gateway, table, account, table.seated.index(account)


async def post_table_chat(request: Request) -> Response:
    """``POST``: 201 with the message as recorded; 409 once the table is no longer open."""
    require_same_site(request)
    gateway, table, account, seat = await _seated_at(request)
    if table.status != "open":
        raise ApiError(409, "table_closed", "the table's game has started: its page has the chat now")
    body = decode_body(await read_body(request), ChatPost)
    try:
        text = checked_chat(body.text, "players")
    except RuleViolation as exc:
        raise ApiError(422, exc.code, exc.message) from exc
    players = players_of(request)
    if (wait_s := players.chat.take(f"table:{table.table_id}\n{account}")) > 0:
        raise too_many("chat messages", wait_s)
    settings, now = players.settings, int(time.time() * 1000)
    wait_s = await shared_buckets.take(
        gateway.redis, "chat", client_address(request), settings.chat_per_address, settings.chat_burst_seconds, now
    )  # fmt: skip
    if wait_s > 0:
        raise too_many("chat messages from this address", wait_s)
    author = (await display_names(gateway.redis, [account]))[0]
    fields = {"channel": "players", "author": author, "seat": seat, "text": text, "ts_ms": now}
    pipe = gateway.redis.pipeline(transaction=False)
    pipe.xadd(chat_key(table.table_id), fields, maxlen=KEEP, approximate=False)
    pipe.expire(chat_key(table.table_id), tables.CLOSED_TTL_S)
    entry_id, _ = await pipe.execute()
    return json_response(ChatFrame(**stored_message(entry_id, _encoded(fields))), 201)


def _encoded(fields: dict[str, object]) -> dict[bytes, bytes]:
    return {k.encode(): str(v).encode() for k, v in fields.items()}


async def list_table_chat(request: Request) -> Response:
    """``GET``: the table's last ``SHOWN`` messages, oldest first (its seated accounts only)."""
    gateway, table, _, _ = await _seated_at(request)
    entries = await gateway.redis.xrevrange(chat_key(table.table_id), count=SHOWN)
    messages = [ChatFrame(**stored_message(entry_id, raw)) for entry_id, raw in reversed(entries)]
    return json_response(ChatLog(messages=messages))
