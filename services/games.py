"""Creating a game as a service does it: a fresh secret seed, the atomic set-up, and bots set going."""

from __future__ import annotations

import secrets
import uuid
from collections.abc import Mapping
from typing import Any

from domain.engine import RuleViolation
from events.ids import BadId, check_game_id, is_tournament_game_id
from events.store import GameMeta
from services.bootstrap import Services, require_rq
from workers.jobs.bots import bot_names
from workers.jobs.schedule import make_scheduler


def create_game(
    services: Services,
    game: str,
    seats: int,
    options: Mapping[str, Any] | None = None,
    *,
    game_id: str | None = None,
    bots: Mapping[int, str] | None = None,
    tournament: bool = False,
    spectator_delay: int = 0,
    redis_url: str | None = None,
    hold: str = "",
) -> tuple[str, GameMeta]:
    """Create a game with a new 32-byte secret seed; if a bot seat is to act first, enqueue its turn.

    Raises ``RuleViolation`` for a seat count or options the game refuses, ``GameExists`` for a taken id,
    and, before writing anything, ``ClusterNotSupported`` for bot seats on a Cluster without ``RQ_REDIS_URL``.
    ``hold``: the game is made but not yet listed nor its bots set going (``services/game_creation.py``
    finishes it).
    """
    check_bots(services, game, bots or {}, seats)
    if bots:
        require_rq(services)
    game_id = checked_game_id(game_id) if game_id is not None else uuid.uuid4().hex[:12]
    meta = services.store.create(
        game, game_id, seats, dict(options or {}), secrets.token_bytes(32), bots=bots,
        tournament=tournament, spectator_delay=spectator_delay, hold=hold,
    )  # fmt: skip
    if bots and redis_url and not hold:
        kick_bots(services, game_id, redis_url)
    return game_id, meta


def checked_game_id(game_id: str, client_chosen: bool = False) -> str:
    """A game id that matches the documented pattern (``events/ids.py``); one a client chose (HTTP, the
    CLI) may not take the shape of a tournament's game, which only its tournament creates."""
    try:
        check_game_id(game_id)
    except BadId as exc:
        raise RuleViolation("game.id", str(exc)) from exc
    if client_chosen and is_tournament_game_id(game_id):
        raise RuleViolation("game.id", "ids ending in -r<round>-t<table> are kept for tournaments' games")
    return game_id


def check_bots(services: Services, game: str, bots: Mapping[int, str], seats: int | None = None) -> None:
    """Refuse a bot name the game does not have (it would otherwise play as ``random``), and a bot on a seat
    the table does not have (the HTTP API refused it; ``new --seats 3 --bots '{"7": ...}'`` took it)."""
    known = services.store.games.get(game)
    if known is None:
        return  # the store refuses the game itself
    names = bot_names(known)
    for seat, name in sorted(bots.items()):
        if seats is not None and not 0 <= seat < seats:
            raise RuleViolation("game.bot", f"seat {seat}: the table has seats 0 to {seats - 1}")
        if name not in names:
            raise RuleViolation(
                "game.bot", f"seat {seat}: unknown bot {name[:40]!r}; this game's bots are {', '.join(names)}"
            )


def kick_bots(services: Services, game_id: str, redis_url: str, delay_s: float = 0.0) -> None:
    """Enqueue the bot turn due now, if any (the fold worker enqueues the later ones after each applied
    command, and ``serve``'s reconciler any that was lost)."""
    scheduler = make_scheduler(
        require_rq(services), redis_url, delay_s, services.bus.partitions, services.settings.game_plugins
    )
    scheduler.ensure(game_id, services.store.load(game_id))
