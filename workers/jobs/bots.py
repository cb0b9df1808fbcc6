"""Server-side bots: an rq job plays every bot seat that is to act in a game.

The fold worker enqueues ``play_bot_turn`` after each applied command of a game with bot seats (while a bot
runner is live, ``workers/botrunner.py`` plays the instant bots and only the search bots' turns come here).
The job chooses the bot's move from the game's current state and submits it like any player would,
with a command id derived from the game's sequence number, so a job run twice sends one command.

A bot's command ids are the server's: sent with origin ``bot`` (their own namespace, see
``keys.result_field``), and unguessable (an HMAC of the game's secret seed), so no player can take them.

A search bot (``strong`` and its levels, ``STRONG_SECONDS``) searches by the clock of the job that plays
it: the job's deadline is its level plus ``DEADLINE_MARGIN_S``, counted from the job's start (loading the
game included); the search stops at the level, and rq's own timeout (``job_timeout``, whole seconds) is the
backstop: should it fire inside a search, the seat plays the greedy move instead, logged. A bot's move is a
command in the log like a person's, so how many iterations a search ran changes nothing for ``verify``.
"""

from __future__ import annotations

import hashlib
import hmac
import importlib
import math
import time
from collections.abc import Callable
from typing import Any

import structlog
from rq import get_current_job
from rq.timeouts import JobTimeoutException

from domain import GAMES, games_with_plugins
from domain.engine import Bot, Game, Rng, Seat
from domain.search import search
from events import codec
from events.bus import CommandBus
from events.connection import connect
from events.store import EventStore, LoadedGame

log = structlog.get_logger("bots")

BOT_QUEUE = "hm-bots"
SEARCH_QUEUE = "hm-bots-search"
"""The search bots' turns: each holds a worker for its level, so the rq workers take this queue last."""

STRONG_SECONDS = {"strong-0.2": 0.2, "strong": 1.0, "strong-5": 5.0}
"""The search bots' time levels by name: a move searches this long (``domain.search``; the domain has no
clock, so the deadline is handed in as ``stop``). The search checks it between iterations, each a few
milliseconds; the job's deadline is the level plus ``DEADLINE_MARGIN_S`` for loading the game and sending
the move, and rq's timeout the backstop (a starved machine can pass the margin: docs/benchmarks.md)."""
STRONG_CAP = 100_000
"""Iterations no move exceeds, whatever the clock: the deadline stops it long before."""
DEADLINE_MARGIN_S = 0.25


def random_legal(game: Game[Any, Any, Any, Any]) -> Bot:
    """The fallback policy: any legal command."""

    def choose(state: Any, seat: Seat, rng: Rng) -> Any:
        return rng.choice(game.legal_commands(state, seat))

    return choose


def _import_bots(key: str) -> Any | None:
    try:
        module = importlib.import_module(f"domain.{key}.bots")
    except ImportError:
        return None
    return module if hasattr(module, "BOTS") else None


BOT_MODULES = {key: _import_bots(key) for key in GAMES}
"""Each built-in game's ``bots`` module, imported with this one and never later: an rq worker forks a
work horse per job while its bot runner thread plays, and a horse forked while that thread held an import's
lock (a first lazy import of a game's bots) waited on it until rq's timeout killed the job (seen: a 1 s
search turn that never searched). A plugin game has no bots module of its own."""


def _bots_module(game: Game[Any, Any, Any, Any]) -> Any | None:
    return BOT_MODULES.get(game.key)


def bot_names(game: Game[Any, Any, Any, Any]) -> tuple[str, ...]:
    """The bots a game has (``domain.<game>.bots.BOTS``, and every level of ``strong`` where the game has a
    searcher). A game without bots of its own (a plugin) takes the two names every game has, both played
    by the random legal mover."""
    module = _bots_module(game)
    if module is None:
        return ("greedy", "random")
    levels = set(STRONG_SECONDS) if hasattr(module, "SEARCHER") else set()
    return tuple(sorted(set(module.BOTS) | levels))


def searches(game: Game[Any, Any, Any, Any], name: str) -> bool:
    """Whether the bot ``name`` is a search bot of this game (played by the clock, by an rq job)."""
    module = _bots_module(game)
    return name in STRONG_SECONDS and module is not None and hasattr(module, "SEARCHER")


class Budget:
    """A ``stop`` for the search: true once ``seconds`` have passed since it was made; counts the
    iterations it was asked about (one a search iteration). Never before the first iteration: a search of
    none plays the first legal command, one of one the greedy bot's choice in a world sampled from the
    seat's view (``mcts._expand``, ``mcts._choice``), so a turn whose time went in loading the game on a
    starved machine still plays a sound move."""

    def __init__(self, seconds: float) -> None:
        self.end = time.monotonic() + seconds
        self.asked = 0

    def __call__(self) -> bool:
        self.asked += 1
        return self.asked > 1 and time.monotonic() >= self.end


def deadline(seconds: float) -> Callable[[], bool]:
    """A ``stop`` for the search: true once ``seconds`` have passed since it was made."""
    return Budget(seconds)


def bot_policy(game: Game[Any, Any, Any, Any], name: str, stop: Callable[[], bool] | None = None) -> Bot:
    """The game's own bot of that name (``domain.<game>.bots.BOTS``), else a random legal mover; a search
    bot (``STRONG_SECONDS``) searches until ``stop`` (default: its level from the move's start) here, by
    its iteration count in the domain."""
    module = _bots_module(game)
    if module is None:
        return random_legal(game)
    if searches(game, name):

        def choose(state: Any, seat: Seat, rng: Rng) -> Any:
            until = stop if stop is not None else deadline(STRONG_SECONDS[name])
            return search(module.SEARCHER, state, seat, rng, STRONG_CAP, stop=until)

        return choose
    policy: Bot = module.BOTS.get(name, random_legal(game))
    return policy


def bot_moves(store: EventStore, game_id: str) -> list[tuple[Seat, bytes, str]]:
    """The moves the bot seats make now: ``(seat, command JSON, command id)``."""
    return moves_at(store.load(game_id))


def _bot_rng(loaded: LoadedGame, seat: Seat) -> Rng:
    return Rng(
        hashlib.sha256(loaded.meta.seed + b"bot" + loaded.seq.to_bytes(8, "big") + bytes([seat])).digest()
    )


StandIns = dict[str, str]
"""Seats (as text) a bot plays for a person who left them (a table's forfeited seat: ``services/players/
table_clock.py``), by bot name: played by the job like the game's own bot seats, under the same ids."""


def acting_bots(loaded: LoadedGame, stand_ins: StandIns | None = None) -> list[tuple[Seat, str]]:
    """The bot seats to act now with their bots' names, in seat order (none once the game is over);
    ``stand_ins``: seats a bot plays besides the game's own."""
    game, bots = loaded.game, {**loaded.meta.bots, **(stand_ins or {})}
    if not bots or game.outcome(loaded.state) is not None:
        return []
    return [(seat, bots[str(seat)]) for seat in sorted(game.to_act(loaded.state)) if str(seat) in bots]


def turn_seconds(loaded: LoadedGame, stand_ins: StandIns | None = None) -> float:
    """The search time of the bot turn at the game's position: the levels of its search seats to act
    (0: none searches, the turn takes milliseconds)."""
    acting = acting_bots(loaded, stand_ins)
    return sum(STRONG_SECONDS[name] for _, name in acting if searches(loaded.game, name))


def moves_at(
    loaded: LoadedGame,
    searching: bool = True,
    until: float | None = None,
    greedy_instead: bool = False,
    budgets: list[Budget] | None = None,
    stand_ins: StandIns | None = None,
) -> list[tuple[Seat, bytes, str]]:
    """The moves the bot seats make in the game as loaded (the rq job and the bot runner alike): the same
    position gives the same moves under the same command ids, whoever chooses them.

    ``searching=False`` leaves out the search bots' seats (the bot runner's: their turns are rq jobs).
    ``until`` (a ``time.monotonic()``): no search runs past it, each searching its level at most.
    ``greedy_instead``: the search seats play the greedy bot (a search cut short by the job's timeout).
    ``budgets`` collects each search's ``Budget`` (its iterations). ``stand_ins``: seats a bot plays for
    a person who left them."""
    game = loaded.game
    moves = []
    for seat, name in acting_bots(loaded, stand_ins):
        searcher = searches(game, name)
        if searcher and not searching:
            continue
        if searcher and greedy_instead:
            policy = bot_policy(game, "greedy")
        elif searcher:
            seconds = STRONG_SECONDS[name]
            budget = Budget(seconds if until is None else max(0.0, min(seconds, until - time.monotonic())))
            if budgets is not None:
                budgets.append(budget)
            policy = bot_policy(game, name, stop=budget)
        else:
            policy = bot_policy(game, name)
        command = policy(loaded.state, seat, _bot_rng(loaded, seat))
        moves.append(
            (seat, codec.encode_command(command), bot_command_id(loaded.meta.seed, loaded.seq, seat))
        )
    return moves


def bot_command_id(seed: bytes, seq: int, seat: Seat) -> str:
    """The id of the bot's move at ``seq``: the same for every run of the job (so it is sent once), and
    keyed with the game's secret seed, so that nobody can know it before the bot sends it."""
    tag = hmac.new(seed, b"bot-command-id:%d:%d" % (seq, seat), hashlib.sha256).hexdigest()[:20]
    return f"bot-{seq}-{seat}-{tag}"


def job_timeout(search_s: float, delay_s: float) -> int:
    """rq's timeout for a turn that searches ``search_s`` (the backstop: rq counts whole seconds)."""
    return max(1, math.ceil(max(search_s, delay_s) + DEADLINE_MARGIN_S))


def play_bot_turn(
    redis_url: str,
    game_id: str,
    delay_s: float = 0.0,
    partitions: int = 16,
    plugins: tuple[str, ...] = (),
    at_seq: int = -1,
    stand_ins: StandIns | None = None,
) -> int:
    """The rq job: submit the bot seats' moves for the game's current state; returns how many.

    A turn that searches keeps its deadline, ``max(level, delay) + DEADLINE_MARGIN_S`` from the job's
    start: the search time counts towards the demo's delay, and the job records on itself (rq's job meta
    ``bot_turn``) the level, the deadline and how long it took (``loaded_s``, ``chosen_s``: when the game
    was loaded and the moves chosen, from the start), as it logs them. ``at_seq``: the position
    the job was enqueued for; a game that moved on since plays its search seats in the job of its new
    position (enqueued by the move that got there, with that search's timeout), not in this one.
    ``stand_ins``: seats the job plays for people who left them, besides the game's bot seats."""
    started = time.monotonic()
    client = connect(redis_url)  # the job runs in a fresh rq work horse: its own client (Cluster-aware)
    try:
        store = EventStore(client, games_with_plugins(tuple(plugins)))
        loaded = store.load(game_id)
        loaded_s = time.monotonic() - started
        searching = at_seq < 0 or loaded.seq == at_seq
        level = turn_seconds(loaded, stand_ins) if searching else 0.0
        if delay_s > level:
            time.sleep(delay_s - level)
        moves, budgets, fell_back = _choose_moves(loaded, started + max(level, delay_s), searching, stand_ins)
        chosen_s = time.monotonic() - started
        if moves:
            bus = CommandBus(client, partitions=partitions)
            bus.submit_many(
                bus.message(game_id, seat, command, command_id, origin="bot")
                for seat, command, command_id in moves
            )
        elapsed = time.monotonic() - started
        turn = {
            "level_s": level, "deadline_s": max(level, delay_s) + DEADLINE_MARGIN_S, "elapsed_s": elapsed,
            "iterations": [b.asked for b in budgets], "greedy_instead": fell_back, "seq": loaded.seq,
            "loaded_s": loaded_s, "chosen_s": chosen_s,
        }  # fmt: skip
        _record(turn)
        log.info("bot_moves", game_id=game_id, seats=[m[0] for m in moves], **turn)
        return len(moves)
    finally:
        client.close()


def _choose_moves(
    loaded: LoadedGame, until: float, searching: bool, stand_ins: StandIns | None
) -> tuple[list[tuple[Seat, bytes, str]], list[Budget], bool]:
    """The turn's moves, searched until ``until``; the greedy move for the search seats should rq's
    timeout cut a search short (a search that overran its stop: the backstop, never expected)."""
    budgets: list[Budget] = []
    try:
        return moves_at(loaded, searching, until, budgets=budgets, stand_ins=stand_ins), budgets, False
    except JobTimeoutException:
        log.warning("bot_search_timed_out", game_id=loaded.meta.header.game_id, seq=loaded.seq)
        return moves_at(loaded, greedy_instead=True, stand_ins=stand_ins), budgets, True


def _record(turn: dict[str, Any]) -> None:
    """The turn's timing on its rq job (read back by tests and operators); nothing outside a job."""
    job = get_current_job()
    if job is not None:
        job.meta["bot_turn"] = turn
        job.save_meta()  # type: ignore[no-untyped-call]  # rq is untyped here
