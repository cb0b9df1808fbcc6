"""Games made by links in *My games* (issue 44.10: a game joined by its seat link never showed there).

A signed-in account's page that holds a seat's token tells the gateway so (``POST /api/games/{id}/mine``
with the token); the game goes into the account's games (``hm:account:<name>:games``, by the game's
creation time) and the seat into ``hm:{g:<id>}:linked`` (``a:<account>`` -> seat). That hash is apart from
the table seats' record (``seat_accounts_key``), which the ratings read: a link game stays unrated. At most
``MAX_LINKED`` accounts a game (a link posted in public is not a way to grow it), checked in one script.
"""

from __future__ import annotations

import msgspec
from starlette.requests import Request
from starlette.responses import Response

from events import keys
from services.gateway.access import auth
from services.gateway.api.accounts_http import require_account, require_same_site
from services.gateway.api.requests import ApiError, feed_of, json_response, viewer_seat
from services.gateway.context import gateway_of
from workers.jobs.account_ratings import account_games_key

MAX_LINKED = 16

_LINK = """
-- KEYS: the game's linked hash, the account's games; ARGV: field, seat, created ms, game id, most
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 and redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[5]) then
  return 0
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[2], 'NX', ARGV[3], ARGV[4])
return 1
"""


class Linked(msgspec.Struct, frozen=True, kw_only=True):
    game_id: str
    seat: int


def linked_key(game_id: str) -> str:
    return keys.game_key(game_id, "linked")


async def remember(request: Request) -> Response:
    """``POST``: the seat of the bearer token, in the signed-in account's *My games*."""
    require_same_site(request)
    account = await require_account(request)
    gateway = gateway_of(request)
    game_id = request.path_params["game_id"]
    feed = await feed_of(gateway, game_id)
    if auth.bearer(request.headers.get("authorization")) is None:
        raise ApiError(401, "missing_token", "send the seat's token as 'Authorization: Bearer <token>'")
    seat = await viewer_seat(gateway, request, game_id, required=True)
    assert seat is not None  # required=True refuses a spectator
    done = await gateway.redis.eval(
        _LINK, 2, linked_key(game_id), account_games_key(account), f"a:{account}", seat,
        feed.meta.header.created_ms, game_id, MAX_LINKED,
    )  # fmt: skip
    if not int(done):
        raise ApiError(409, "too_many_accounts", f"at most {MAX_LINKED} accounts keep one game by its links")
    return json_response(Linked(game_id=game_id, seat=seat))
