"""``harbormaster``: serve, worker, new, send, log, export, verify.

A user's mistake is one clear line on stderr and a non-zero exit code, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import msgspec
import redis

from domain.engine import RuleViolation
from events import codec
from events.errors import EventsError, GameExists, UnknownGame
from services import cluster
from services import logging as hm_logging
from services.bootstrap import ClusterNotSupported, Services, build, load_games
from services.config import Settings
from services.discovery import NoServer, find_redis
from services.games import create_game
from services.gateway.auth import mint_tokens
from services.redis_launcher import EmbeddedRedis, RedisNotFound, running_url, wait_for_redis


class UserError(Exception):
    """Something the user can fix: printed as one line, exit code 2."""


# --- Redis: the one in REDIS_URL, the embedded one already running, or a new embedded one -----------------


@contextmanager
def redis_for(settings: Settings) -> Iterator[str]:
    """The Redis URL a worker or gateway uses; starts (and afterwards stops) an embedded server when none
    is running on the data folder."""
    if settings.redis_url:
        yield settings.redis_url
        return
    url = running_url(settings.data_dir)
    if url:
        yield url
        return
    with _embedded(settings.data_dir) as started:
        yield started


@contextmanager
def redis_for_games(settings: Settings) -> Iterator[str]:
    """The Redis URL a verb that works on games uses: the one the user means, from any folder (see
    ``services/discovery.py``); when it has to start one of its own, it says so on stderr."""
    found = find_redis(settings)
    if found.url is not None:
        yield found.url
        return
    assert found.start_in is not None
    print(
        f"harbormaster: no running server found; using {found.how} (until this command ends)", file=sys.stderr
    )
    with _embedded(found.start_in) as started:
        yield started


@contextmanager
def _embedded(data_dir: Path) -> Iterator[str]:
    server = EmbeddedRedis(data_dir)
    server.start()
    try:
        yield server.url
    finally:
        server.stop()


# --- commands ------------------------------------------------------------------------------------------


def cmd_new(services: Services, url: str, args: argparse.Namespace) -> int:
    if args.game not in services.store.games:
        raise UserError(
            f"unknown game {args.game!r}; choose one of {', '.join(sorted(services.store.games))}"
        )
    options = _json_arg(args.options, "--options")
    bots = {int(seat): name for seat, name in _json_arg(args.bots, "--bots").items()}
    if bots and cluster.is_cluster_client(services.redis):
        raise ClusterNotSupported(
            "bot seats are played through rq, which does not run on a Redis Cluster yet"
        )
    game_id, meta = create_game(
        services,
        args.game,
        args.seats,
        options,
        game_id=args.id,
        bots=bots,
        tournament=args.tournament,
        spectator_delay=args.spectator_delay,
        redis_url=url,
    )
    human_seats = [seat for seat in range(args.seats) if seat not in bots]
    tokens = mint_tokens(services.redis, game_id, human_seats)
    seats: list[dict[str, int | str]] = [{"seat": seat, "token": token} for seat, token in tokens.items()]
    seats += [{"seat": seat, "bot": name} for seat, name in bots.items()]
    created = {"game_id": game_id, "game": args.game, "events": meta.last_seq}
    print(
        json.dumps(
            created
            | {"seats": sorted(seats, key=lambda s: str(s["seat"]).zfill(3)), "watch": f"/games/{game_id}"}
        )
    )
    return 0


def cmd_send(services: Services, args: argparse.Namespace) -> int:
    loaded_meta = services.store.meta(args.game_id)
    game = services.store.games[loaded_meta.header.game]
    body = args.command.encode()
    try:
        codec.decode_command(game, body)
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise UserError(f"not a {game.key} command: {exc}") from exc
    if args.id is not None and (not args.id or args.id.startswith("@")):
        raise UserError("a command id is not empty and does not start with @ (reserved)")
    command_id = services.bus.submit(args.game_id, args.seat, body, args.id)
    record = _wait_for_result(services, args.game_id, args.seat, command_id, args.wait)
    if record is None:
        print(json.dumps({"command_id": command_id, "status": "submitted"}))
        return 0
    print(json.dumps(msgspec.to_builtins(record) | {"command": body.decode()}))
    return 0 if record.status == "applied" else 1


def _wait_for_result(
    services: Services, game_id: str, seat: int | None, command_id: str, wait_s: float
) -> Any:
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        record = services.store.result(game_id, command_id, seat)
        if record is not None:
            return record
        time.sleep(0.02)
    return None


def cmd_log(services: Services, args: argparse.Namespace) -> int:
    meta = services.store.meta(args.game_id)
    game = services.store.games[meta.header.game]
    for envelope in services.store.read(args.game_id, after_seq=args.from_seq):
        event = codec.decode_event(game, envelope)
        line = {"seq": envelope.seq, "command_id": envelope.command_id, "seat": envelope.seat}
        print(json.dumps(line | {"event": msgspec.to_builtins(event)}))
    return 0


def cmd_export(services: Services, args: argparse.Namespace) -> int:
    from services.audit.export import export_lines

    out = sys.stdout.buffer
    for line in export_lines(services.store, args.game_id):
        out.write(line + b"\n")
    out.flush()
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    from services.audit.verify import verify_file

    path = Path(args.file)
    if not path.exists():
        raise UserError(f"no such file: {path}")
    report = verify_file(path, load_games(Settings.from_env()))
    problem = report.first_problem()
    if problem is not None:
        print(f"FAILED at seq {problem.seq}: {problem.reason}", file=sys.stderr)
        for other in report.problems[1:]:
            print(f"  also at seq {other.seq}: {other.reason}", file=sys.stderr)
        return 1
    if report.finished:
        checked = "finished game, every decision re-checked"
    else:  # nothing in a live game's export can show what comes after it: say how far it reaches
        checked = (
            f"live game, verified up to seq {report.last_seq} "
            "(chain and replay; decisions are re-checked once the game ends and reveals its seed)"
        )
    print(f"OK {report.game} {report.game_id}: {report.events} events, {report.commands} commands; {checked}")
    return 0


def cmd_games(services: Services, args: argparse.Namespace) -> int:
    for game_id in services.store.list_games(live_only=args.live):
        meta = services.store.meta(game_id)
        print(
            json.dumps(
                {"game_id": game_id, "game": meta.header.game, "status": meta.status, "seq": meta.last_seq}
            )
        )
    return 0


def cmd_worker(services: Services, url: str, args: argparse.Namespace) -> int:
    from workers.runner import run_fold_worker

    run_fold_worker(
        services.store,
        services.bus,
        url,
        bot_delay_s=args.bot_delay,
        batch_size=args.batch,
        plugins=services.settings.game_plugins,
    )
    return 0


def cmd_rq_worker(services: Services, args: argparse.Namespace) -> int:
    from workers.runner import run_rq_worker

    run_rq_worker(services.redis, services.settings.log_level.upper(), no_fork=args.no_fork)
    return 0


def cmd_gateway(services: Services, url: str, args: argparse.Namespace) -> int:
    import uvicorn

    from services.gateway.app import create_app
    from services.gateway.socket_writer import SocketProtocol

    uvicorn.run(
        create_app(services, redis_url=url),
        host=args.host,
        port=args.port,
        log_level="warning",
        ws_per_message_deflate=services.settings.ws_compression,
        ws=SocketProtocol,
    )
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


def _json_arg(text: str | None, name: str) -> dict[str, Any]:
    if not text:
        return {}
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UserError(f"{name} is not valid JSON: {exc}") from exc
    if not isinstance(value, dict):
        raise UserError(f"{name} must be a JSON object")
    return value


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
    worker.add_argument("--batch", type=int, default=256, help="commands read per round")
    rq_worker = sub.add_parser("rq-worker", help="an rq worker for bot turns and tournament rounds")
    rq_worker.add_argument("--no-fork", action="store_true", help="run jobs in this process (faster)")
    gateway = sub.add_parser("gateway", help="only the gateway (HTTP, WebSocket, web client) on REDIS_URL")
    gateway.add_argument("--host", default="127.0.0.1")
    gateway.add_argument("--port", type=int, default=8000)
    new = sub.add_parser("new", help="create a game; prints its id")
    new.add_argument("game", help="elcapitan, manila or eic")
    new.add_argument("--seats", type=int, required=True)
    new.add_argument("--options", help="JSON object, e.g. '{\"variant_boarding\": true}'")
    new.add_argument("--bots", help='JSON object seat -> bot, e.g. \'{"1": "greedy", "2": "random"}\'')
    new.add_argument("--id", help="the game id (default: random)")
    new.add_argument("--tournament", action="store_true")
    new.add_argument("--spectator-delay", type=int, default=0, help="events spectators lag behind")
    send = sub.add_parser("send", help="submit a command for a seat and wait for its result")
    send.add_argument("game_id")
    send.add_argument("seat", type=int)
    send.add_argument("command", help='JSON, e.g. \'{"type": "Pass"}\'')
    send.add_argument("--id", help="command id (default: random); resending an id returns its first result")
    send.add_argument(
        "--wait", type=float, default=10.0, help="seconds to wait for the result (0: do not wait)"
    )
    log = sub.add_parser("log", help="print a game's events as JSON lines")
    log.add_argument("game_id")
    log.add_argument("--from", dest="from_seq", type=int, default=0)
    export = sub.add_parser("export", help="write a game's whole log as JSON lines (for verify)")
    export.add_argument("game_id")
    verify = sub.add_parser("verify", help="check an export offline: hash chain, replay, decisions, seed")
    verify.add_argument("file")
    games = sub.add_parser("games", help="list games")
    games.add_argument("--live", action="store_true")
    from services.tournament_cli import add_parser as add_tournament_parser

    add_tournament_parser(sub)
    return p


ON_CLUSTER = ("new", "log", "export", "games")
"""The verbs that work on a Redis Cluster (``new`` without bots: bot turns go through rq); the others refuse
one at start (see ``services/bootstrap.py``)."""

LONG_RUNNING = ("worker", "rq-worker", "gateway")
"""Processes ``serve`` supervises: started while Redis restarts, they wait for it rather than exit."""


def run(argv: Sequence[str]) -> int:
    args = parser().parse_args(argv)
    settings = Settings.from_env()
    hm_logging.configure(settings.log_format, settings.log_level)
    if args.subcommand == "verify" or getattr(args, "verb", None) == "verify":
        return cmd_verify(args) if args.subcommand == "verify" else tournament_verify(args.file)
    if args.subcommand == "serve":
        return cmd_serve(settings, args)
    if args.subcommand in LONG_RUNNING:
        with redis_for(settings) as url:
            wait_for_redis(url)
            services = build(settings, url)
            if args.subcommand == "worker":
                return cmd_worker(services, url, args)
            if args.subcommand == "rq-worker":
                return cmd_rq_worker(services, args)
            return cmd_gateway(services, url, args)
    with redis_for_games(settings) as url:
        services = build(settings, url, on_cluster=args.subcommand in ON_CLUSTER)
        if args.subcommand == "tournament":
            from services.tournament_cli import run_verb

            return run_verb(services, url, args)
        try:
            if args.subcommand == "new":
                return cmd_new(services, url, args)
            handler = {"send": cmd_send, "log": cmd_log, "export": cmd_export, "games": cmd_games}
            return handler[args.subcommand](services, args)
        except UnknownGame as exc:  # say where it looked: the wrong Redis is the usual reason
            raise UserError(f"no such game: {exc} (in the Redis at {url})") from exc


def tournament_verify(path: str) -> int:
    from services.tournament_cli import verify_file

    return verify_file(path)


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


def child_env(url: str) -> dict[str, str]:
    """The environment for a child process: ours, pointed at the Redis we use."""
    return {**os.environ, "REDIS_URL": url}


def spawn(
    args: Sequence[str], url: str, extra_env: Mapping[str, str] | None = None
) -> subprocess.Popen[bytes]:
    """Start ``harbormaster <args>`` as a child process on the same Redis.

    In a session of its own: a Ctrl-C in the terminal reaches only the parent, which then stops its
    children one at a time, in order (a second signal would turn a child's warm stop into a hard one).
    On Linux the child also gets SIGTERM (a warm stop) if the parent dies without stopping it (Linux ties
    that to the thread that started the child: call this from the main thread).
    """
    return subprocess.Popen(
        [sys.executable, "-m", "services.cli", *args],
        env={**child_env(url), **(extra_env or {})},
        start_new_session=True,
        preexec_fn=_stop_with_parent if sys.platform == "linux" else None,
    )


def _stop_with_parent() -> None:
    """In the child, before it runs: ask Linux for SIGTERM when the parent process dies."""
    import ctypes
    import signal

    pr_set_pdeathsig = 1
    ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGTERM)


if __name__ == "__main__":
    main()
