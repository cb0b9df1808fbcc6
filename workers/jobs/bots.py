"""Server-side bots: an rq job plays every bot seat that is to act in a game.

The fold worker enqueues ``play_bot_turn`` after each applied command of a game with bot seats. The
job decides which bot move to make from the game's current state and submits it like any player would,
with a command id derived from the game's sequence number, so a job run twice sends one command.

A bot's command ids are the server's: sent with origin ``bot`` (their own namespace, see
``keys.result_field``), and unguessable (an HMAC of the game's secret seed), so no player can take them.
"""

from __future__ import annotations

import hashlib
import hmac
import importlib
import time
from typing import Any

import structlog

from domain import games_with_plugins
from domain.engine import Bot, Game, Rng, Seat
from domain.search import search
from events import codec
from events.bus import CommandBus
from events.connection import connect
from events.store import EventStore, LoadedGame

log = structlog.get_logger("bots")

BOT_QUEUE = "hm-bots"


def random_legal(game: Game[Any, Any, Any, Any]) -> Bot:
    """The fallback policy: any legal command."""

    def choose(state: Any, seat: Seat, rng: Rng) -> Any:
        return rng.choice(game.legal_commands(state, seat))

    return choose


def bot_names(game: Game[Any, Any, Any, Any]) -> tuple[str, ...]:
    """The bots a game has (``domain.<game>.bots.BOTS``). A game without bots of its own (a plugin) takes
    the two names every game has, both played by the random legal mover."""
    try:
        bots = importlib.import_module(f"domain.{game.key}.bots").BOTS
    except (ImportError, AttributeError):
        return ("greedy", "random")
    return tuple(sorted(bots))


STRONG_SECONDS = {"strong": 1.0}
"""The search bots' time levels: a move searches this long (``domain.search``; the domain has no clock, so
the deadline is handed in as ``stop``). The search checks it between iterations, each a few milliseconds,
so a move ends within ``DEADLINE_MARGIN_S`` of its level and never holds a worker longer."""
STRONG_CAP = 100_000
"""Iterations no move exceeds, whatever the clock: the deadline stops it long before."""
DEADLINE_MARGIN_S = 0.25


def deadline(seconds: float) -> Any:
    """A ``stop`` for the search: true once ``seconds`` have passed since it was made."""
    end = time.monotonic() + seconds
    return lambda: time.monotonic() >= end


def _searching(module: Any, seconds: float) -> Bot:
    """The game's search bot, budgeted by time: as many iterations as ``seconds`` allow."""

    def choose(state: Any, seat: Seat, rng: Rng) -> Any:
        return search(module.SEARCHER, state, seat, rng, STRONG_CAP, stop=deadline(seconds))

    return choose


def bot_policy(game: Game[Any, Any, Any, Any], name: str) -> Bot:
    """The game's own bot of that name (``domain.<game>.bots.BOTS``), else a random legal mover; a search
    bot (``STRONG_SECONDS``) searches by the clock here, by its iteration count in the domain."""
    try:
        module = importlib.import_module(f"domain.{game.key}.bots")
        bots = module.BOTS
    except (ImportError, AttributeError):
        return random_legal(game)
    if name in STRONG_SECONDS and name in bots and hasattr(module, "SEARCHER"):
        return _searching(module, STRONG_SECONDS[name])
    policy: Bot = bots.get(name, random_legal(game))
    return policy


def bot_moves(store: EventStore, game_id: str) -> list[tuple[Seat, bytes, str]]:
    """The moves the bot seats make now: ``(seat, command JSON, command id)``."""
    return moves_at(store.load(game_id))


def moves_at(loaded: LoadedGame) -> list[tuple[Seat, bytes, str]]:
    """The moves the bot seats make in the game as loaded (the rq job and the bot runner alike): the same
    position gives the same moves under the same command ids, whoever decides them."""
    game, bots = loaded.game, loaded.meta.bots
    if game.outcome(loaded.state) is not None:
        return []
    moves = []
    for seat in sorted(game.to_act(loaded.state)):
        name = bots.get(str(seat))
        if name is None:
            continue
        rng = Rng(
            hashlib.sha256(loaded.meta.seed + b"bot" + loaded.seq.to_bytes(8, "big") + bytes([seat])).digest()
        )
        command = bot_policy(game, name)(loaded.state, seat, rng)
        moves.append(
            (seat, codec.encode_command(command), bot_command_id(loaded.meta.seed, loaded.seq, seat))
        )
    return moves


def bot_command_id(seed: bytes, seq: int, seat: Seat) -> str:
    """The id of the bot's move at ``seq``: the same for every run of the job (so it is sent once), and
    keyed with the game's secret seed, so that nobody can know it before the bot sends it."""
    tag = hmac.new(seed, b"bot-command-id:%d:%d" % (seq, seat), hashlib.sha256).hexdigest()[:20]
    return f"bot-{seq}-{seat}-{tag}"


def play_bot_turn(
    redis_url: str, game_id: str, delay_s: float = 0.0, partitions: int = 16, plugins: tuple[str, ...] = ()
) -> int:
    """The rq job: submit the bot seats' moves for the game's current state; returns how many."""
    client = connect(redis_url)  # the job runs in a fresh rq work horse: its own client (Cluster-aware)
    store = EventStore(client, games_with_plugins(tuple(plugins)))
    bus = CommandBus(client, partitions=partitions)
    if delay_s:
        time.sleep(delay_s)
    moves = bot_moves(store, game_id)
    if moves:
        bus.submit_many(
            bus.message(game_id, seat, command, command_id, origin="bot")
            for seat, command, command_id in moves
        )
        log.info("bot_moves", game_id=game_id, seats=[m[0] for m in moves])
    client.close()
    return len(moves)
