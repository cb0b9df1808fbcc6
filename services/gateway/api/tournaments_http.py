"""``/api/tournaments``: create, start, pause, resume, list and inspect tournaments (JSON for the web
pages: standings with tie-breaks and ratings, rounds, tables with their game ids)."""

from __future__ import annotations

from typing import Any

import msgspec
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response

from domain.engine import RuleViolation
from events.tournament_store import TournamentExists, UnknownTournament
from services import tournament_people as people
from services import tournament_service as service
from services.gateway.access import auth
from services.gateway.api.requests import (
    ApiError,
    decode_body,
    int_param,
    json_response,
    presented_admin_token,
    read_body,
    require_admin,
)
from services.gateway.context import gateway_of


class TournamentRating(msgspec.Struct, frozen=True):
    mu: float
    sigma: float
    ordinal: float


class StandingLine(msgspec.Struct, frozen=True):
    """One row; besides these fields it has one field per tie-break (``points``, ``opponents_points`` …)."""

    rank: int
    player: int
    name: str
    bot: str | None
    tables: int
    byes: int
    rating: TournamentRating
    withdrawn: bool = False
    """Withdrawn by the organiser: not paired again, results kept, never among the winners."""


class TableLine(msgspec.Struct, frozen=True):
    table: int
    game_id: str
    players: list[int]
    finished: bool
    ranking: list[int] | None
    scores: list[int] | None


class RoundLine(msgspec.Struct, frozen=True):
    round: int
    closed: bool
    byes: list[int]
    tables: list[TableLine]


class PersonKey(msgspec.Struct, frozen=True):
    """A person entrant's key, returned once by ``POST /api/tournaments`` (Redis keeps its digest)."""

    player: int
    name: str
    key: str


class PersonTable(msgspec.Struct, frozen=True):
    """Where a person plays now (``GET /api/tournaments/{id}`` with ``Authorization: Bearer <their key>``):
    ``link`` opens the table in the web client with their seat; no game on a bye or before round 1."""

    player: int
    name: str
    round: int
    game_id: str | None
    seat: int | None
    finished: bool
    link: str | None


class ClockSettings(msgspec.Struct, frozen=True):
    """The tournament's clocks (0: off), what a timeout does (``default_move`` or ``forfeit``) and the
    no-show deadline (0: off)."""

    move_limit_s: float
    total_limit_s: float
    on_timeout: str
    no_show_s: float = 0.0


class TournamentInfo(msgspec.Struct, frozen=True):
    """A tournament; ``standings`` and ``rounds_played`` only on ``GET /api/tournaments/{id}``."""

    tournament_id: str
    game: str
    format: str
    status: str
    table_size: int
    round: int
    rounds: int
    players: int
    tie_breaks: list[str]
    tables_finished: int
    tables: int
    winners: list[str]
    failure: str | None = None
    """Only when ``status`` is ``failed``: why the server set the tournament aside (nothing acts on it)."""
    clock: ClockSettings | None = None
    standings: list[StandingLine] | None = None
    rounds_played: list[RoundLine] | None = None
    people: list[PersonKey] | None = None
    """Only in the answer to ``POST /api/tournaments``: each person entrant's key, shown this once."""
    organiser_key: str | None = None
    """Only in the answer to ``POST /api/tournaments``: the tournament's organiser key, shown this once
    (``Authorization: Bearer`` for its start, pause, resume, withdraw and cancel)."""
    you: PersonTable | None = None
    """Only with a person's key as the bearer token: their current table and its link."""


class TournamentList(msgspec.Struct, frozen=True):
    tournaments: list[TournamentInfo]


async def _info(request: Request, tid: str, full: bool = True) -> dict[str, Any]:
    services = gateway_of(request).services
    try:
        return await run_in_threadpool(service.describe, services, tid, full)
    except UnknownTournament as exc:
        raise ApiError(404, "unknown_tournament", f"no tournament {tid[:80]!r}") from exc


async def list_tournaments(request: Request) -> Response:
    """``GET /api/tournaments``: newest first, paged."""
    services = gateway_of(request).services
    offset, limit = int_param(request, "offset", 0), int_param(request, "limit", 50, 1, 500)
    ids = await run_in_threadpool(service.list_ids, services, offset, limit)
    return json_response({"tournaments": await run_in_threadpool(service.describe_listed, services, ids)})


async def create_tournament(request: Request) -> Response:
    """``POST /api/tournaments``: record a tournament (bot entrants); ``start`` begins it."""
    require_admin(request, "managing tournaments")
    services = gateway_of(request).services
    spec = decode_body(await read_body(request), service.TournamentSpec)
    try:
        tid, made = await run_in_threadpool(service.create_with_keys, services, spec)
    except RuleViolation as exc:
        raise ApiError(422, exc.code, exc.message) from exc
    except TournamentExists as exc:
        raise ApiError(409, "tournament_exists", f"a tournament {spec.id!r} exists already") from exc
    body = await _info(request, tid, full=False)
    body["organiser_key"] = await run_in_threadpool(people.make_organiser_key, services, tid)
    if made:
        names = {p: e.name for p, e in enumerate(service.entrants_of(spec))}
        body["people"] = [{"player": p, "name": names[p], "key": key} for p, key in sorted(made.items())]
    return json_response(body, status=201)


async def get_tournament(request: Request) -> Response:
    """``GET /api/tournaments/{tournament_id}``: settings, progress, standings and every round's tables;
    with a person's key as the bearer token, also ``you``: their current table and its link."""
    tid = request.path_params["tournament_id"]
    body = await _info(request, tid)
    key = auth.bearer(request.headers.get("authorization"))
    admin = gateway_of(request).settings.admin_token
    if key is not None and not (admin and auth.admin_ok(admin, key)):  # the organiser may send theirs
        services = gateway_of(request).services
        player = await run_in_threadpool(people.player_of, services, tid, key)
        if player is None:
            raise ApiError(403, "wrong_key", "this is not the key of a person in this tournament")
        state = await run_in_threadpool(service.load, services, tid)
        body["you"] = people.current_table(state, player, key)
    return json_response(body)


async def _organiser(request: Request, tid: str) -> None:
    """The admin token or the tournament's own organiser key, never a person's nor another tournament's:
    every tournament write but creation and a person's own claim. A tournament stored without a key
    (an older version's) takes the admin token only; the CLI, on the machine with Redis, needs neither."""
    gateway = gateway_of(request)
    presented = presented_admin_token(request)
    admin = gateway.settings.admin_token
    if admin is not None and auth.admin_ok(admin, presented):
        return
    if await run_in_threadpool(people.organiser_ok, gateway.services, tid, presented):
        return
    await _info(request, tid, full=False)  # 404 for no tournament (its page is public anyway)
    code = 401 if presented is None else 403
    raise ApiError(
        code, "organiser_key_required", "this needs the tournament's organiser key (or the admin token)"
    )


async def _verb(request: Request, verb: Any) -> Response:
    gateway = gateway_of(request)
    tid = request.path_params["tournament_id"]
    await _organiser(request, tid)
    try:
        await run_in_threadpool(verb, gateway.services, gateway.redis_url, tid)
    except UnknownTournament as exc:
        raise ApiError(404, "unknown_tournament", f"no tournament {tid!r}") from exc
    except RuleViolation as exc:  # a reason or name that is not printable text: the body's fault
        raise ApiError(422 if exc.code in BAD_TEXT else 409, exc.code, exc.message) from exc
    return json_response(await _info(request, tid, full=False))


BAD_TEXT = frozenset({"tournament.reason", "tournament.name"})
"""Refusals of what the organiser typed (``domain/text.py``): 422, as a malformed body."""


async def start_tournament(request: Request) -> Response:
    return await _verb(request, service.start)


async def pause_tournament(request: Request) -> Response:
    return await _verb(request, service.pause)


async def resume_tournament(request: Request) -> Response:
    return await _verb(request, service.resume)


class WithdrawBody(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    player: int
    reason: str = ""


class ReplaceBody(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    player: int
    name: str


async def replace_person(request: Request) -> Response:
    """``POST /api/tournaments/{id}/replace`` ``{"player", "name"}``: the organiser gives a person's place
    to another person, mid-game too; the answer's ``people`` holds the newcomer's key, shown this once."""
    body = decode_body(await read_body(request), ReplaceBody)
    made: list[str] = []

    def act(services: Any, url: str, tid: str) -> None:
        made.append(service.replace_person(services, url, tid, body.player, body.name))

    answer = await _verb(request, act)
    info = msgspec.json.decode(answer.body)
    info["people"] = [{"player": body.player, "name": " ".join(body.name.split()), "key": made[0]}]
    return json_response(info)


class CancelBody(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    reason: str = ""


async def withdraw_player(request: Request) -> Response:
    """``POST /api/tournaments/{id}/withdraw`` ``{"player": N, "reason": …}``: the organiser withdraws a
    player (never paired again, results kept)."""
    body = decode_body(await read_body(request), WithdrawBody)
    return await _verb(request, lambda s, url, tid: service.withdraw(s, url, tid, body.player, body.reason))


class AdjudicateBody(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    round: int
    table: int
    """From 1, as the tournament page numbers tables."""
    ranking: list[int]
    reason: str


async def adjudicate_table(request: Request) -> Response:
    """``POST /api/tournaments/{id}/adjudicate`` ``{"round", "table", "ranking", "reason"}``: the organiser
    decides a table whose game has not ended (points count, ratings do not move)."""
    body = decode_body(await read_body(request), AdjudicateBody)

    def act(services: Any, url: str, tid: str) -> None:
        service.adjudicate(services, url, tid, body.round, body.table, body.ranking, body.reason)

    return await _verb(request, act)


async def cancel_tournament(request: Request) -> Response:
    """``POST /api/tournaments/{id}/cancel`` ``{"reason": …}``: the organiser cancels the tournament."""
    raw = await read_body(request)
    body = decode_body(raw, CancelBody) if raw.strip() else CancelBody()
    return await _verb(request, lambda s, url, tid: service.cancel(s, url, tid, body.reason))
