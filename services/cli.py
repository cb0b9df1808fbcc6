"""``harbormaster``: serve, worker, rq-worker, gateway; the game verbs (``game_cli``) and tournaments (``tournament_cli``).

A user's mistake is one clear line on stderr and a non-zero exit code, never a traceback.
"""

from __future__ import annotations

import argparse
import gc
import signal
import sys
from collections.abc import Sequence
from types import FrameType

import redis
import structlog

from domain.engine import RuleViolation
from events.errors import EventsError, GameExists, UnknownGame
from services import game_cli, move_path
from services import logging as hm_logging
from services.bootstrap import ClusterNotSupported, Services, build, load_games, require_rq
from services.cli_common import UserError, redis_for, redis_for_games
from services.config import Settings
from services.discovery import NoServer, at_home
from services.redis_launcher import RedisNotFound, wait_for_redis

__all__ = ["UserError", "main", "parser", "run"]


# --- the long-running processes -------------------------------------------------------------------------


def cmd_worker(services: Services, url: str, args: argparse.Namespace) -> int:
    from workers.runner import run_fold_worker

    run_fold_worker(
        services.store,
        services.bus,
        url,
        bot_delay_s=args.bot_delay,
        batch_size=args.batch,
        plugins=services.settings.game_plugins,
        archive_dir=str(services.settings.archive_dir) if services.settings.archive_dir else None,
        rq=require_rq(services),
        plain_transport=services.settings.transport == "plain",
    )
    return 0


def cmd_rq_worker(services: Services, args: argparse.Namespace) -> int:
    from workers.runner import run_rq_worker

    bots = None if args.no_bot_runner else (services.store, services.bus, args.bot_delay)
    run_rq_worker(require_rq(services), services.settings.log_level.upper(), no_fork=args.no_fork, bots=bots)
    return 0


GATEWAY_YOUNG_COLLECTION = 20_000
"""Allocations between two of the gateway's young collections (Python's default: 700)."""


def cmd_gateway(services: Services, url: str, args: argparse.Namespace) -> int:
    import uvicorn

    from services.gateway.app import create_app
    from services.gateway.server import shared_port, uvicorn_options

    config = uvicorn.Config(
        create_app(services, redis_url=url),
        host=args.host,
        port=args.port,
        log_level="warning",
        **uvicorn_options(services.settings.limits, services.settings.ws_compression),
    )
    sockets = [shared_port(args.host, args.port)] if args.reuse_port else None
    config.load()
    # What is loaded by now (modules, classes, the app) lives as long as the process: kept out of the
    # collector's full passes, which otherwise walk it again every time sockets come and go.
    gc.collect()
    gc.freeze()
    # A young collection every 700 allocations (the default) ran every few moves; at 20,000 the gateway
    # spends ~3 us less a move (A/B at 50 games: 58.8 -> 55.5 us), and each one is still short.
    gc.set_threshold(GATEWAY_YOUNG_COLLECTION, 10, 10)
    uvicorn.Server(config).run(sockets=sockets)
    return 0


def cmd_serve(settings: Settings, args: argparse.Namespace) -> int:
    from services.serve import serve

    return serve(
        settings,
        host=args.host,
        port=args.port,
        demo=args.demo,
        workers=args.workers,
        bot_delay=args.bot_delay,
        rq_workers=args.rq_workers,
    )


# --- parsing --------------------------------------------------------------------------------------------


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="harbormaster", description="Host El Capitán, Manila and East India Companies."
    )
    sub = p.add_subparsers(dest="subcommand", required=True)
    serve = sub.add_parser(
        "serve", help="embedded Redis if needed, the gateway, a fold worker and an rq worker"
    )
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument("--workers", type=int, default=1, help="fold worker processes")
    serve.add_argument("--rq-workers", type=int, default=1, help="rq worker processes (bot turns)")
    serve.add_argument("--demo", action="store_true", help="start a live bot game of each kind to watch")
    serve.add_argument(
        "--bot-delay", type=float, default=0.0, help="seconds a server bot waits before moving"
    )
    worker = sub.add_parser("worker", help="a fold worker (commands -> events)")
    worker.add_argument("--bot-delay", type=float, default=0.0)
    worker.add_argument(
        "--batch", type=int, default=256, help="the most commands a read takes from one partition"
    )
    rq_worker = sub.add_parser("rq-worker", help="an rq worker for bot turns and tournament rounds")
    rq_worker.add_argument("--no-fork", action="store_true", help="run jobs in this process (faster)")
    rq_worker.add_argument("--bot-delay", type=float, default=0.0, help="seconds a server bot waits")
    rq_worker.add_argument(
        "--no-bot-runner", action="store_true", help="no bot runner thread: bots move by one rq job a move"
    )
    gateway = sub.add_parser("gateway", help="only the gateway (HTTP, WebSocket, web client) on REDIS_URL")
    gateway.add_argument("--host", default="127.0.0.1")
    gateway.add_argument("--port", type=int, default=8000)
    gateway.add_argument(
        "--reuse-port", action="store_true", help="share the port with other gateways (SO_REUSEPORT)"
    )
    game_cli.add_parsers(sub)
    from services import log_cli

    log_cli.add_parsers(sub)
    from services.tournament_cli import add_parser as add_tournament_parser

    add_tournament_parser(sub)
    from services.witness.cli import add_parser as add_witness_parser

    add_witness_parser(sub)
    return p


LONG_RUNNING = ("worker", "rq-worker", "gateway", "sequencer")
"""Processes ``serve`` supervises: started while Redis restarts, they wait for it rather than exit."""


def _warn_if_interpreted() -> None:
    """A build that is there but runs interpreted (stale, broken or switched off) is worth one line."""
    if move_path.interpreted_because is not None:
        structlog.get_logger("cli").warning("move_path_interpreted", reason=move_path.interpreted_because)


def run(argv: Sequence[str]) -> int:
    args = parser().parse_args(argv)
    try:
        settings = Settings.from_env()
    except ValueError as exc:  # a setting that cannot be used: one line naming it, before anything starts
        raise UserError(str(exc)) from exc
    hm_logging.configure(settings.log_format, settings.log_level)
    if args.subcommand not in ("serve", "witness"):  # a verb works in the home of the service it talks to
        settings = at_home(settings)
    if args.subcommand in LONG_RUNNING:  # the processes that run the compiled path (serve's children too)
        _warn_if_interpreted()
    if args.subcommand == "verify" or getattr(args, "verb", None) == "verify":
        return game_cli.cmd_verify(args) if args.subcommand == "verify" else tournament_verify(args, settings)
    if args.subcommand == "serve":
        return cmd_serve(settings, args)
    if args.subcommand == "log-key":  # the key file alone: no Redis
        from services.log_cli import cmd_log_key

        return cmd_log_key(settings, args)
    if args.subcommand == "witness":  # no Redis: it follows another server's log over HTTP
        from services.witness.cli import cmd_witness

        signal.signal(signal.SIGTERM, _interrupt)
        return cmd_witness(args, settings.data_dir)
    if args.subcommand in LONG_RUNNING:
        # uvicorn raises SIGTERM again once the gateway has stopped: let it unwind, so that an embedded Redis
        # this process started is stopped too (the workers stop warmly on SIGTERM by their own handlers).
        signal.signal(signal.SIGTERM, _interrupt)
        with redis_for(settings) as url:
            wait_for_redis(url)
            services = build(settings, url)
            if args.subcommand == "worker":
                return cmd_worker(services, url, args)
            if args.subcommand == "rq-worker":
                return cmd_rq_worker(services, args)
            if args.subcommand == "sequencer":
                from services.log_cli import cmd_sequencer

                return cmd_sequencer(services)
            return cmd_gateway(services, url, args)
    runs_its_own = args.subcommand == "tournament" and args.verb == "run"
    if runs_its_own:  # it starts workers (and perhaps Redis): SIGTERM stops them all, as Ctrl-C does
        signal.signal(signal.SIGTERM, _interrupt)
    with redis_for_games(settings, may_start=runs_its_own) as url:
        services = build(settings, url)
        if args.subcommand == "tournament":
            from services.tournament_cli import run_verb

            require_rq(services)  # its rounds and bots are rq jobs: refused here, before anything is written

            return run_verb(services, url, args)
        if args.subcommand in ("checkpoint", "log-export"):
            from services.log_cli import run_verb as run_log_verb

            return run_log_verb(services, args)
        try:
            if args.subcommand == "new":
                return game_cli.cmd_new(services, url, args)
            handler = {
                "send": game_cli.cmd_send,
                "log": game_cli.cmd_log,
                "export": game_cli.cmd_export,
                "games": game_cli.cmd_games,
                "archive": game_cli.cmd_archive,
            }
            return handler[args.subcommand](services, args)
        except UnknownGame as exc:  # say where it looked: the wrong Redis is the usual reason
            raise UserError(f"no such game: {exc} (in the Redis at {url})") from exc


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def tournament_verify(args: argparse.Namespace, settings: Settings) -> int:
    from services.anchor_cli import anchors_from, tournament_paths
    from services.tournament_cli import verify_file

    export, archives, log = tournament_paths(args.file, args.archives)  # a file, or an export folder
    anchors = anchors_from(args, default_log=log)
    # The plugin games too, as ``verify`` replays a game (an archive of a plugin game is not "unknown").
    return verify_file(str(export), archives or settings.archive_dir, anchors, load_games(settings))


def _explain(exc: Exception) -> tuple[int, str] | None:
    """The exit code and one line for an error a user can act on; ``None`` for a bug (traceback)."""
    if isinstance(exc, UnknownGame):
        return 2, f"no such game: {exc}"
    if isinstance(exc, GameExists):
        return 2, f"a game with id {exc} exists already"
    if isinstance(exc, RuleViolation):
        return 2, f"refused by the rules: {exc.message} ({exc.code})"
    if isinstance(exc, UserError | EventsError | RedisNotFound | ClusterNotSupported | NoServer):
        return 2, str(exc)
    if isinstance(exc, redis.ConnectionError):
        return 3, f"cannot reach Redis: {exc}"
    return None


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of the ``harbormaster`` command."""
    try:
        code = run(sys.argv[1:] if argv is None else argv)
    except (BrokenPipeError, KeyboardInterrupt) as exc:
        code = 0 if isinstance(exc, BrokenPipeError) else 130
    except Exception as exc:
        explained = _explain(exc)
        if explained is None:
            raise
        code, text = explained
        print(f"harbormaster: {text}", file=sys.stderr)
    sys.exit(code)


if __name__ == "__main__":
    main()
