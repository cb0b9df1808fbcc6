"""Tournaments as a service: create, start, pause, resume, inspect and export, on the event store.

The CLI (``harbormaster tournament``) and the HTTP API (``/api/tournaments``) both call these.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator, Sequence
from typing import Any

import msgspec
import structlog

from domain.engine import RuleViolation
from domain.tournament import (
    Entrant,
    State,
    TournamentSettings,
    current_standings,
    default_tie_breaks,
    total_rounds,
)
from domain.tournament import rules as tournament_rules
from domain.tournament.validate import MAX_PLAYERS, check_settings
from events.errors import UnknownGame
from events.ids import BadId, check_tournament_id
from events.tournament_store import TournamentStore, decode
from services.audit.jsonl import ENCODER
from services.bootstrap import Services, require_rq
from services.tournament_seeds import account_seeds as seeds
from workers.jobs import tournament as jobs
from workers.jobs.bots import bot_names
from workers.jobs.failures import UNREACHABLE, failure_reason

log = structlog.get_logger("tournaments")


class TournamentSpec(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """What an organiser sends to create a tournament (HTTP body, or a JSON file for the CLI)."""

    game: str
    format: str = "swiss"
    rounds: int = 0
    table_size: int | None = None
    entrants: list[Entrant] = msgspec.field(default_factory=list)
    bots: list[str] = msgspec.field(default_factory=list)
    """A shortcut for bot fields: ``players`` entrants named ``<bot>-<n>``, bots taken in turn."""
    players: int = 0
    tie_breaks: list[str] | None = None
    points: dict[int, list[int]] | None = None
    bye_points: int | None = None
    advance: int = 1
    options: dict[str, Any] = msgspec.field(default_factory=dict)
    move_limit_s: float = 0.0
    """Per-move clock in seconds (0: off): a silent seat plays its default move."""
    total_limit_s: float = 0.0
    """Total thinking time per seat and game in seconds (0: off); past it, each turn is the default move."""
    on_timeout: str = "default_move"
    """``default_move`` or ``forfeit`` (a timed-out seat ranks below the others at its table)."""
    no_show_s: float = 0.0
    """No-show deadline in seconds (0: off): a seat never moving by itself, to act this long, forfeits."""
    id: str | None = None


def entrants_of(spec: TournamentSpec) -> list[Entrant]:
    entrants = list(spec.entrants)
    for n in range(spec.players):
        bot = spec.bots[n % len(spec.bots)] if spec.bots else "random"
        entrants.append(Entrant(name=f"{bot}-{n + 1}", bot=bot))
    return entrants


def settings_of(spec: TournamentSpec, min_seats: int, max_seats: int) -> TournamentSettings:
    default = TournamentSettings(game=spec.game)
    points = default.points
    if spec.points is not None or spec.bye_points is not None:
        by_size = {str(k): tuple(v) for k, v in (spec.points or {}).items()} or dict(points.by_size)
        points = msgspec.structs.replace(
            points, by_size=by_size, bye=spec.bye_points if spec.bye_points is not None else points.bye
        )
    fmt = spec.format
    return TournamentSettings(
        game=spec.game,
        format=fmt,  # type: ignore[arg-type]  # checked by rules.create
        rounds=spec.rounds,
        table_size=spec.table_size or min(max(4, min_seats), max_seats),
        points=points,
        tie_breaks=tuple(spec.tie_breaks) if spec.tie_breaks else default_tie_breaks(fmt),  # type: ignore[arg-type]
        advance=spec.advance,
        options=dict(spec.options),
        move_limit_s=spec.move_limit_s,  # checked, with every other setting, by check_settings
        total_limit_s=spec.total_limit_s,
        on_timeout=spec.on_timeout,  # type: ignore[arg-type]  # checked by rules.create
        no_show_s=spec.no_show_s,
    )


def create(services: Services, spec: TournamentSpec) -> str:
    """Record a new tournament; raises ``RuleViolation`` for settings the game cannot play."""
    return create_with_keys(services, spec)[0]


def create_with_keys(services: Services, spec: TournamentSpec) -> tuple[str, dict[int, str]]:
    """Record a new tournament; returns its id and each person's key (player index -> key), which
    exists only here: Redis keeps its digest (``services/tournament_people.py``)."""
    from services.tournament_people import make_keys

    game = services.store.games.get(spec.game)
    if game is None:
        known = ", ".join(sorted(services.store.games))
        raise RuleViolation("tournament.game", f"unknown game {spec.game[:40]!r}; choose one of {known}")
    tid = checked_id(spec.id) if spec.id is not None else "t" + secrets.token_hex(5)
    if not 0 <= spec.players <= MAX_PLAYERS - len(spec.entrants):  # before a list of that many is made
        raise RuleViolation("tournament.entrants", f"a tournament has 2 to {MAX_PLAYERS} players")
    entrants = entrants_of(spec)
    settings = settings_of(spec, game.min_seats, game.max_seats)
    check_settings(settings, entrants, game, bot_names(game))
    events = tournament_rules.create(
        tid, settings, entrants,
        min_seats=game.min_seats, max_seats=game.max_seats, pairing_seed=secrets.token_bytes(16),
    )  # fmt: skip
    TournamentStore(services.redis).create(events[0])  # type: ignore[arg-type]
    return tid, make_keys(services, tid, [p for p, e in enumerate(entrants) if not e.bot])


def checked_id(tid: str) -> str:
    """A tournament id an organiser chose, if it matches the documented pattern (``events/ids.py``)."""
    try:
        return check_tournament_id(tid)
    except BadId as exc:
        raise RuleViolation("tournament.id", str(exc)) from exc


def _verb(services: Services, url: str, tid: str, name: str, verb: Any) -> list[Any]:
    tournaments = TournamentStore(services.redis)
    seq = tournaments.load(tid).seq
    plugins = services.settings.game_plugins
    return jobs.run_decision(
        services.store,
        require_rq(services),
        tournaments,
        tid,
        f"{name}-{seq}",
        verb,
        url,
        services.bus.partitions,
        plugins,
    )


def start(services: Services, url: str, tid: str) -> None:
    """Start, seeded by the ratings of the accounts tied to entrants (none tied: not seeded)."""
    _verb(
        services, url, tid, "start", lambda state: tournament_rules.start(state, seeds(services.redis, state))
    )


def pause(services: Services, url: str, tid: str) -> None:
    _verb(services, url, tid, "pause", tournament_rules.pause)


def resume(services: Services, url: str, tid: str) -> None:
    _verb(services, url, tid, "resume", tournament_rules.resume)


def withdraw(services: Services, url: str, tid: str, player: int, reason: str = "") -> None:
    """The organiser withdraws a player: never paired again, results kept (``rules.withdraw``)."""
    _verb(
        services,
        url,
        tid,
        f"withdraw-p{player}",
        lambda state: tournament_rules.withdraw(state, player, reason),
    )


def adjudicate(
    services: Services, url: str, tid: str, number: int, table: int, ranking: list[int], reason: str
) -> None:
    """The organiser decides a table whose game has not ended (``rules.adjudicate``), at its position now."""
    state = load(services, tid)
    if not 1 <= number <= len(state.rounds) or not 1 <= table <= len(state.rounds[number - 1].games):
        raise RuleViolation("tournament.table", f"round {number} has no table {table}")
    game_id = state.rounds[number - 1].games[table - 1]
    try:
        meta = services.store.meta(game_id)
    except UnknownGame:
        position = ""
    else:
        if meta.status == "finished":  # its game decided it: the organiser may not overwrite a played result
            raise RuleViolation(
                "tournament.game_over",
                f"round {number} table {table}'s game {game_id} has ended: its result is the game's, "
                "recorded when the round closes; only a game not over can be adjudicated",
            )
        position = meta.last_hash

    def adjudication(now: State) -> list[Any]:
        return tournament_rules.adjudicate(now, number, table - 1, ranking, position, reason)

    _verb(services, url, tid, f"adjudicate-r{number}-t{table}", adjudication)


def replace_person(services: Services, url: str, tid: str, player: int, name: str) -> str:
    """The organiser gives a person's place to ``name`` (``rules.replace_person``), mid-game too; returns
    the newcomer's key (shown once), which from now on opens that place's seats instead of the old one."""
    from services.tournament_people import hand_over

    _verb(
        services,
        url,
        tid,
        f"replace-p{player}",
        lambda state: tournament_rules.replace_person(state, player, name),
    )
    return hand_over(services, load(services, tid), player)


def cancel(services: Services, url: str, tid: str, reason: str = "") -> None:
    """The organiser cancels the tournament: nothing is paired or recorded after it."""
    _verb(services, url, tid, "cancel", lambda state: tournament_rules.cancel(state, reason))


def reconcile(services: Services, url: str, tid: str) -> State:
    loaded = jobs.reconcile(
        services.store, require_rq(services), TournamentStore(services.redis), tid, url, services.bus.partitions,
        services.settings.game_plugins,
    )  # fmt: skip
    return loaded.state


def load(services: Services, tid: str) -> State:
    return TournamentStore(services.redis).load(tid).state


def list_ids(services: Services, offset: int = 0, limit: int = 50) -> list[str]:
    return TournamentStore(services.redis).list(offset, limit)


# --- what clients see -----------------------------------------------------------------------------------


def standings_json(state: State) -> list[dict[str, Any]]:
    rows = []
    for row in current_standings(state):
        entrant, rating = state.entrants[row.player], state.ratings[row.player]
        rows.append(
            {
                "rank": row.rank,
                "player": row.player,
                "name": entrant.name,
                "bot": entrant.bot,
                **dict(zip(state.settings.tie_breaks, row.values, strict=True)),
                "tables": row.tables,
                "byes": row.byes,
                "withdrawn": row.player in state.withdrawn,
                "rating": {
                    "mu": round(rating.mu, 3),
                    "sigma": round(rating.sigma, 3),
                    "ordinal": round(rating.ordinal, 3),
                },
            }
        )
    return rows


def rounds_json(state: State) -> list[dict[str, Any]]:
    out = []
    for played in state.rounds:
        tables = []
        for index, (players, game_id) in enumerate(zip(played.pairing.tables, played.games, strict=True)):
            result = played.results[index]
            tables.append(
                {
                    "table": index + 1,
                    "game_id": game_id,
                    "players": list(players),
                    "finished": result is not None,
                    "ranking": list(result.ranking) if result else None,
                    "scores": list(result.scores) if result else None,
                }
            )
        out.append(
            {
                "round": played.number,
                "closed": played.closed,
                "byes": list(played.pairing.byes),
                "tables": tables,
            }
        )
    return out


def describe(services: Services, tid: str, full: bool = True) -> dict[str, Any]:
    """``summary`` of the tournament as stored, its status ``failed`` (and ``failure``, why) if set aside."""
    tournaments = TournamentStore(services.redis)
    return summary(tournaments.load(tid).state, full, tournaments.failure(tid))


def describe_listed(services: Services, ids: Sequence[str]) -> list[dict[str, Any]]:
    """``describe`` (without standings and rounds) of each of ``ids``; one that cannot be read (its keys
    deleted by hand, a record no version of this code wrote) is logged and left out, not the whole list."""
    listed = []
    for tid in ids:
        try:
            listed.append(describe(services, tid, full=False))
        except UNREACHABLE:
            raise
        except Exception as exc:
            log.warning("tournament_unreadable", tournament_id=tid, error=failure_reason(exc))
    return listed


def summary(state: State, full: bool = True, failure: str | None = None) -> dict[str, Any]:
    """The tournament as JSON: settings, status, progress and (``full``) standings and rounds; with
    ``failure``, the status is ``failed`` and ``failure`` says why (``TournamentStore.mark_failed``)."""
    current = state.current()
    body: dict[str, Any] = {
        "tournament_id": state.tournament_id,
        "game": state.settings.game,
        "format": state.settings.format,
        "status": state.status,
        "table_size": state.settings.table_size,
        "round": current.number if current else 0,
        "rounds": total_rounds(state),
        "players": len(state.entrants),
        "tie_breaks": list(state.settings.tie_breaks),
        "tables_finished": sum(r is not None for r in current.results) if current else 0,
        "tables": len(current.results) if current else 0,
        "winners": [state.entrants[p].name for p in state.winners],
        "clock": state.settings.clock(),
    }
    if failure is not None:
        body["status"], body["failure"] = "failed", failure
    if full:
        body["standings"] = standings_json(state)
        body["rounds_played"] = rounds_json(state)
    return body


def export_lines(services: Services, tid: str) -> Iterator[bytes]:
    """The tournament's log as JSON Lines: its header, every envelope with its hashes and the event in
    readable form, then one line per game with its final hash (each game exports on its own) and, once
    archived, its archive file, its copy in the archive bucket if one is configured, and the last hash in
    it (``null`` until then); last, the end line (last seq and hash, how many event and game lines, the
    status), which ``tournament verify`` needs to tell a whole export from a cut one."""
    from services.archive import archived

    tournaments = TournamentStore(services.redis)
    header = tournaments.header(tid)
    yield ENCODER.encode({"kind": "header", **msgspec.to_builtins(header)})
    envelopes = tournaments.envelopes(tid)
    for envelope in envelopes:
        line = msgspec.to_builtins(envelope)
        line["payload"] = envelope.payload.hex()
        yield ENCODER.encode({"kind": "event", **line, "event": msgspec.to_builtins(decode(envelope))})
    state = tournaments.load(tid).state
    files = archived(services.redis, list(game_ids(state)))
    for played in state.rounds:
        for index, game_id in enumerate(played.games):
            result = played.results[index]
            entry = files.get(game_id, {})
            yield ENCODER.encode({"kind": "game", "round": played.number, "table": index + 1, "game_id": game_id,
                                  "final_hash": result.final_hash if result else None,
                                  "archive": entry.get("file"), "archive_object": entry.get("object"),
                                  "archive_last_hash": entry.get("last_hash"),
                                  "archive_conflict": entry.get("conflict")})  # fmt: skip
    # The end line: how far the export reaches, so that a file cut short (or padded) is told from a whole one.
    last = envelopes[-1]
    yield ENCODER.encode({"kind": "end", "last_seq": last.seq, "last_hash": last.hash, "events": len(envelopes),
                          "games": len(game_ids(state)), "status": state.status})  # fmt: skip


def game_ids(state: State) -> Sequence[str]:
    return [g for played in state.rounds for g in played.games]
