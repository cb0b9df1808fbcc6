"""The HTTP API: games, commands, views, legal commands, event logs (see ``openapi.py`` for the contract).

Status codes: 400 malformed body or parameter, 401 missing token, 403 wrong token, 404 unknown game or
page, 409 a command the rules refused (``?wait=true``) or a game that is over, 413 body too large,
422 a body that is JSON but not a valid command or game request, 429 over a rate limit (with
``Retry-After``), 503 Redis unreachable (with ``Retry-After``; see ``app.py``). A rule refusal is found by the fold
worker: without ``?wait=true`` the request gets 202 and the refusal is recorded at
``/api/games/{id}/commands/{command_id}``.
"""

from __future__ import annotations

import msgspec
import structlog
from starlette.requests import Request
from starlette.responses import Response

from events import codec, keys
from events.errors import UnknownGame
from events.ids import parse_tournament_game_id
from events.store import meta_from_hash, queue_meta_read
from services.gateway.access import auth
from services.gateway.access.sessions import session_seat
from services.gateway.api import names
from services.gateway.api.accounts_http import require_same_site
from services.gateway.api.protocol import (
    Accepted,
    Catalog,
    CatalogGame,
    CommandOutcome,
    EventItem,
    EventPage,
    GameList,
    GameState,
    GameSummary,
    Health,
    SubmitCommand,
)
from services.gateway.api.requests import (
    COMMAND_ID,
    ApiError,
    charge_command,
    decode_body,
    feed_of,
    int_param,
    json_response,
    outcome_of,
    rate_limited,
    read_body,
    viewed_game,
    viewer_seat,
)
from services.gateway.commands import parse_command, submit
from services.gateway.context import Gateway, client_address, gateway_of
from services.gateway.feeds.fanout import spectating_key

log = structlog.get_logger("gateway")


# --- games (POST /api/games: create_http.py) ------------------------------------------------------------


async def list_games(request: Request) -> Response:
    """``GET /api/games?status=live|finished|all&offset=&limit=``: newest first."""
    gateway = gateway_of(request)
    status = request.query_params.get("status", "all")
    if status not in ("live", "finished", "all"):
        raise ApiError(400, "bad_parameter", "status is live, finished or all")
    offset = int_param(request, "offset", 0)
    limit = int_param(request, "limit", 50, 1, 500)
    ids = await _game_ids(gateway, status, offset, limit + 1)
    summaries = await _summaries(gateway, ids[:limit])
    if status == "live":  # the index follows the worker a moment late; the meta hash is never late
        summaries = [s for s in summaries if s.status != "finished"]
    next_offset = offset + limit if len(ids) > limit else None
    return json_response(GameList(games=summaries, offset=offset, limit=limit, next_offset=next_offset))


async def _game_ids(gateway: Gateway, status: str, offset: int, count: int) -> list[str]:
    redis = gateway.redis
    if status != "finished":
        index = keys.LIVE_GAMES if status == "live" else keys.GAMES_INDEX
        return [i.decode() for i in await redis.zrevrange(index, offset, offset + count - 1)]
    every = await redis.zrevrange(keys.GAMES_INDEX, 0, -1)
    if not every:
        return []
    live = await redis.zmscore(keys.LIVE_GAMES, every)
    # A game leaves the live index a moment after its last event; its meta status says finished at once.
    pipe = redis.pipeline(transaction=False)
    for game_id, score in zip(every, live, strict=True):
        if score is not None:
            pipe.hget(keys.meta(game_id.decode()), "status")
    statuses = iter(await pipe.execute())
    finished = [
        i.decode()
        for i, score in zip(every, live, strict=True)
        if score is None or next(statuses) == b"finished"
    ]
    return finished[offset : offset + count]


async def _summaries(gateway: Gateway, ids: list[str]) -> list[GameSummary]:
    pipe = gateway.redis.pipeline(transaction=False)
    for game_id in ids:
        queue_meta_read(pipe, game_id)
        pipe.hmget(spectating_key(game_id), names.FIELD, "delay_s")
    replies = await pipe.execute()
    out = []
    for game_id, raw, position, (chosen, delay_s) in zip(
        ids, replies[::3], replies[1::3], replies[2::3], strict=True
    ):
        if not raw or b"header" not in raw:
            continue
        meta = meta_from_hash(raw, position)
        delayed = (
            meta.tournament and meta.status != "finished" and (meta.spectator_delay > 0 or bool(delay_s))
        )
        seq = await _spectators_seq(gateway, game_id) if delayed else meta.last_seq
        if seq is None:
            continue
        game = gateway.games.get(meta.header.game)
        out.append(
            GameSummary(
                game_id=game_id,
                game=meta.header.game,
                title=game.title if game else meta.header.game,
                seats=meta.header.seats,
                status=meta.status,
                seq=seq,
                created_ms=meta.header.created_ms,
                bots=meta.bots,
                tournament=meta.tournament,
                names=names.with_defaults(names.decoded(chosen), meta.header.seats, meta.bots),
            )
        )
    return out


async def _spectators_seq(gateway: Gateway, game_id: str) -> int | None:
    """The last event a spectator of this delayed game may see now: what the public list shows of it, never
    the real one (a delayed spectator saw seq 39 while the list said 45: issue 43, finding 17). Its feed
    knows (events and their times); ``None`` for a game gone meanwhile."""
    try:
        feed = await gateway.hub.feed(game_id)
    except UnknownGame:
        return None
    return feed.visible_seq(None)


async def get_game(request: Request) -> Response:
    """``GET /api/games/{id}[?at=SEQ]``: the caller's view now (or after event ``at``)."""
    gateway, feed, seat = await viewed_game(request)
    visible = feed.visible_seq(seat)
    at = int_param(request, "at", visible, feed.setup_seq, visible)
    state = feed.state_at(at)
    outcome = feed.game.outcome(state)
    return json_response(
        GameState(
            game_id=feed.game_id,
            game=feed.game.key,
            title=feed.game.title,
            seats=feed.meta.header.seats,
            status="finished" if outcome is not None else "live",
            seq=at,
            last_seq=visible,
            viewer=seat,
            to_act=feed.to_act(state),
            view=feed.game.view(state, seat),
            outcome=outcome,
            bots=feed.meta.bots,
            tournament=feed.meta.tournament,
            spectator_delay=feed.meta.spectator_delay,
            names=await names.load(gateway.redis, feed.game_id, feed.meta.header.seats, feed.meta.bots),
            tournament_id=_tournament_of(feed.game_id) if feed.meta.tournament else None,
            seed_commitment=feed.meta.header.seed_commitment,
        )
    )


def _tournament_of(game_id: str) -> str | None:
    """The tournament of a table's game, read off its id (``<tournament>-r<round>-t<table>``)."""
    parsed = parse_tournament_game_id(game_id)
    return parsed[0] if parsed else None


async def legal(request: Request) -> Response:
    """``GET /api/games/{id}/legal``: the seat's legal commands, each exactly what may be posted."""
    _, feed, seat = await viewed_game(request, required=True)
    assert seat is not None
    return json_response(feed.game.legal_commands(feed.state, seat))


async def events(request: Request) -> Response:
    """``GET /api/games/{id}/events?from=N&limit=``: events after ``N`` as the caller may see them."""
    _, feed, seat = await viewed_game(request)
    visible = feed.visible_seq(seat)
    after = int_param(request, "from", 0)
    limit = int_param(request, "limit", 1000, 1, 5000)
    finished = feed.finished  # a live game's events are shown with their seals (fanout.shown_hash)
    items = [
        EventItem(
            seq=entry.envelope.seq,
            hash=feed.shown_hash(entry.envelope.seq, finished),
            type=entry.envelope.type,
            seat=entry.envelope.seat,
            command_id=entry.envelope.command_id,
            ts_ms=entry.envelope.ts_ms,
            event=feed.redacted(entry, seat),
        )
        for entry in feed.entries[after : min(visible, after + limit)]
    ]
    page = EventPage(game_id=feed.game_id, events=items, last_seq=visible, redacted=not finished)
    return json_response(page)


# --- commands -------------------------------------------------------------------------------------------


async def submit_command(request: Request) -> Response:
    """``POST /api/games/{id}/commands[?wait=true]``: the seat comes from the token, never the body."""
    gateway = gateway_of(request)
    game_id = request.path_params["game_id"]
    token = auth.bearer(request.headers.get("authorization"))
    charge_command(gateway, client_address(request), None)
    feed = await feed_of(gateway, game_id)
    seat, token_key = await _writer_seat(gateway, request, game_id, token)
    if (wait_s := gateway.limits.token(token_key)) > 0:
        raise rate_limited(wait_s, "seat token")
    body = decode_body(await read_body(request), SubmitCommand)
    command, command_id = parse_command(feed, bytes(body.command), body.command_id)
    wait = request.query_params.get("wait", "").lower() in ("1", "true", "yes")
    pending = submit(gateway, feed, seat, command, command_id, listen=wait)
    try:
        # A record at once: the same command id again, its first result (never applied twice).
        record = await pending.submitted()
        if record is None and wait:
            record = await pending.settled(gateway.wait_timeout_s)
        if record is None:  # not waited for, or not decided in time
            return json_response(Accepted(command_id=command_id), 202)
        return json_response(*outcome_of(record))
    finally:
        pending.stop_listening()


async def _writer_seat(
    gateway: Gateway, request: Request, game_id: str, token: str | None
) -> tuple[int, str]:
    """The seat a command is sent as, and the key of its rate: the bearer token's, else the seat of the
    signed-in account (``sessions.py``), from a page of this gateway's own site only."""
    if token is not None:
        seat = await gateway.seat_for(game_id, token)
        if seat is None:
            raise ApiError(403, "wrong_token", "this token is not a seat token of this game")
        return seat, auth.digest(token)
    seat = await session_seat(gateway, request, game_id)
    if seat is None:
        raise ApiError(401, "missing_token", "send the seat's token as 'Authorization: Bearer <token>'")
    require_same_site(request)
    return seat, f"session:{game_id}:{seat}"


async def command_result(request: Request) -> Response:
    """``GET /api/games/{id}/commands/{command_id}``: the token's seat's command, applied, rejected, or still
    pending. Command ids are scoped to their seat, so the seat (the token) says whose id it is."""
    gateway = gateway_of(request)
    game_id, command_id = request.path_params["game_id"], request.path_params["command_id"]
    if not COMMAND_ID.match(command_id):  # e.g. the results hash's own "@position": not a command id
        raise ApiError(404, "unknown_command", "a command id is 1 to 64 letters, digits or _.:-")
    if not await gateway.redis.exists(keys.meta(game_id)):
        raise ApiError(404, "unknown_game", f"no game {game_id!r}")
    seat = await viewer_seat(gateway, request, game_id, required=True)
    raw = await gateway.redis.hget(keys.results(game_id), keys.result_field("seat", seat, command_id))
    if raw is None:
        return json_response(CommandOutcome(command_id=command_id, status="pending"))
    return json_response(outcome_of(codec.decode_record(raw))[0])


# --- service --------------------------------------------------------------------------------------------


async def catalog(request: Request) -> Response:
    """``GET /api/catalog``: the games this gateway hosts and their seat ranges."""
    games = [
        msgspec.convert(g, CatalogGame, from_attributes=True) for g in gateway_of(request).games.values()
    ]
    return json_response(Catalog(games=games))


async def healthz(request: Request) -> Response:
    """``GET /healthz``: 200 when Redis answers, 503 when it does not."""
    gateway = gateway_of(request)
    try:
        ok = bool(await gateway.redis.ping())
    except Exception:
        ok = False
    health = Health(status="ok" if ok else "unavailable", redis=ok, games=sorted(gateway.games))
    return json_response(health, 200 if ok else 503)
