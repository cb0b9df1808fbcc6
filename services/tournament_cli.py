"""``harbormaster tournament``: run, create, start, pause, resume, status, standings, export."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import msgspec
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from domain.tournament import FORMATS, Entrant, State
from services import tournaments as service
from services.bootstrap import Services
from services.cli_common import UserError
from workers.metrics import METRICS_KEY

RECONCILE_EVERY_S = 3.0


def add_parser(sub: Any) -> None:
    t = sub.add_parser("tournament", help="tournaments: run a bot tournament, or create and manage one")
    verbs = t.add_subparsers(dest="verb", required=True)
    run = verbs.add_parser("run", help="run a whole bot tournament with live progress, then the standings")
    _spec_flags(run)
    run.add_argument("--workers", type=int, default=1, help="fold worker processes to start")
    run.add_argument("--rq-workers", type=int, default=2, help="rq worker processes to start")
    run.add_argument("--external-workers", action="store_true", help="use workers already running")
    run.add_argument("--top", type=int, default=20, help="standings rows to show")
    create = verbs.add_parser("create", help="create a tournament from a JSON file or flags; prints its id")
    create.add_argument(
        "--file", help="a JSON file: {game, format, rounds, table_size, entrants|players+bots, ...}"
    )
    _spec_flags(create, required=False)
    check = verbs.add_parser("verify", help="check a tournament export offline: chain, replay, every pairing")
    check.add_argument("file")
    link = verbs.add_parser(
        "link", help="a person's current table and the link that opens it with their seat"
    )
    link.add_argument("tournament_id")
    link.add_argument("--key", required=True, help="the person's key (printed once by create)")
    for verb in ("start", "pause", "resume", "status", "standings", "export"):
        parser = verbs.add_parser(verb, help=f"{verb} a tournament")
        parser.add_argument("tournament_id")
        if verb == "standings":
            parser.add_argument("--top", type=int, default=0, help="rows to show (0: all)")


def _spec_flags(p: argparse.ArgumentParser, required: bool = True) -> None:
    p.add_argument("--game", required=required, help="elcapitan, manila or eic")
    p.add_argument("--format", default="swiss", choices=FORMATS)
    p.add_argument("--rounds", type=int, default=0, help="0: the format's natural length")
    p.add_argument("--players", type=int, default=0)
    p.add_argument("--bots", default="greedy,random", help="bot names taken in turn by the players")
    p.add_argument("--table-size", type=int, default=0, help="seats per table (default 4 where allowed)")
    p.add_argument("--advance", type=int, default=1, help="elimination: how many of each table go on")
    p.add_argument("--move-limit", type=float, default=0.0, help="seconds per move before a timeout (0: off)")
    p.add_argument("--total-limit", type=float, default=0.0, help="seconds per seat and game in all (0: off)")
    p.add_argument("--on-timeout", choices=("default-move", "forfeit"), default="default-move",
                   help="what a timeout does: the default move, or that and the seat forfeits its table")  # fmt: skip
    p.add_argument("--id", help="the tournament id (default: random)")
    p.add_argument("--person", action="append", default=[], help="a person entrant's name (repeatable)")


def _spec(args: argparse.Namespace) -> service.TournamentSpec:
    if getattr(args, "file", None):
        return msgspec.json.decode(Path(args.file).read_bytes(), type=service.TournamentSpec)
    if not args.game:
        raise ValueError("--game or --file is needed")
    return service.TournamentSpec(
        game=args.game, format=args.format, rounds=args.rounds, table_size=args.table_size or None,
        players=args.players, bots=[b for b in args.bots.split(",") if b], advance=args.advance, id=args.id,
        move_limit_s=args.move_limit, total_limit_s=args.total_limit,
        on_timeout=args.on_timeout.replace("-", "_"), entrants=[Entrant(name=name) for name in args.person],
    )  # fmt: skip


def run_verb(services: Services, url: str, args: argparse.Namespace) -> int:
    out = sys.stdout
    if args.verb == "run":
        return _run(services, url, args)
    if args.verb == "create":
        tid, made = service.create_with_keys(services, _spec(args))
        print(tid, file=out)
        names = service.load(services, tid).entrants
        for index, key in sorted(made.items()):  # shown this once: Redis keeps only the digest
            print(json.dumps({"player": index, "name": names[index].name, "key": key}), file=out)
        return 0
    tid = args.tournament_id
    if args.verb == "link":
        from services.tournament_people import current_table, player_of

        person = player_of(services, tid, args.key)
        if person is None:
            raise UserError(f"that key is not the key of a person in tournament {tid}")
        print(json.dumps(current_table(service.load(services, tid), person, args.key)), file=out)
        return 0
    if args.verb in ("start", "pause", "resume"):
        getattr(service, args.verb)(services, url, tid)
        print(json.dumps(service.summary(service.load(services, tid), full=False)), file=out)
        return 0
    if args.verb == "status":
        print(json.dumps(service.summary(service.load(services, tid), full=False)), file=out)
        return 0
    if args.verb == "standings":
        Console().print(standings_table(service.load(services, tid), args.top))
        return 0
    for line in service.export_lines(services, tid):
        sys.stdout.buffer.write(line + b"\n")
    sys.stdout.buffer.flush()
    return 0


def verify_file(path: str) -> int:
    """``tournament verify FILE`` (no Redis needed): 0 when the export holds, 1 with each problem."""
    from services.audit.tournament_verify import verify_tournament_lines

    report = verify_tournament_lines(line for line in Path(path).read_bytes().splitlines() if line.strip())
    if not report.ok:
        for problem in report.problems or ["no events"]:
            sys.stderr.write(f"FAILED {report.tournament_id}: {problem}\n")
        return 1
    sys.stdout.write(f"OK {report.tournament_id}: {report.events} events, chain intact, {report.rounds_checked} "
                     f"pairings re-decided, {report.games} games listed (each verifies with harbormaster "
                     "export/verify)\n")  # fmt: skip
    return 0


def standings_table(state: State, top: int = 0) -> Table:
    rows = service.standings_json(state)
    table = Table(
        title=f"{state.settings.game} {state.settings.format} — {state.tournament_id} ({state.status})"
    )
    table.add_column("#", justify="right")
    table.add_column("player")
    for name in state.settings.tie_breaks:
        table.add_column(name.replace("_", " "), justify="right")
    table.add_column("tables", justify="right")
    table.add_column("rating (μ ± σ)", justify="right")
    for row in rows[: top or None]:
        rating = row["rating"]
        values = [str(row[name]) for name in state.settings.tie_breaks]
        table.add_row(str(row["rank"]), row["name"], *values, str(row["tables"]),
                      f"{rating['mu']:.1f} ± {rating['sigma']:.1f}")  # fmt: skip
    return table


def _spawn_workers(url: str, args: argparse.Namespace) -> list[subprocess.Popen[bytes]]:
    if args.external_workers:
        return []
    from services.cli import spawn

    # The workers' own logs would scroll the progress bar away; their warnings still show.
    os.environ.setdefault("HARBORMASTER_LOG_LEVEL", "warning")
    children = [spawn(["worker"], url) for _ in range(max(1, args.workers))]
    children += [spawn(["rq-worker", "--no-fork"], url) for _ in range(max(1, args.rq_workers))]
    return children


def _stop(children: Sequence[subprocess.Popen[bytes]]) -> None:
    for child in children:
        child.terminate()
    for child in children:
        try:
            child.wait(timeout=20)
        except subprocess.TimeoutExpired:
            child.kill()


def _commands(services: Services) -> int:
    return int(services.redis.hget(METRICS_KEY, "commands_applied") or 0)


def _run(services: Services, url: str, args: argparse.Namespace) -> int:
    console = Console()
    tid = service.create(services, _spec(args))
    services.bus.ensure_groups()
    children = _spawn_workers(url, args)
    started, commands_before = time.monotonic(), _commands(services)
    try:
        service.start(services, url, tid)
        state = _follow(services, url, tid, console, commands_before)
    finally:
        _stop(children)
    elapsed = time.monotonic() - started
    if services.settings.archive_dir is not None:  # the last games' archive jobs may not have run
        from services.archive import archive_missing

        archive_missing(services.store, list(service.game_ids(state)), services.settings.archive_dir)
    console.print(standings_table(state, args.top))
    console.print(summary_line(state, _commands(services) - commands_before, elapsed))
    return 0


def _follow(services: Services, url: str, tid: str, console: Console, commands_before: int) -> State:
    """Show progress until the tournament finishes; reconcile now and then (a lost trigger or a crashed
    worker never stops it)."""
    state = service.load(services, tid)
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[rate]}"),
               TimeElapsedColumn())  # fmt: skip
    with Progress(*columns, console=console, transient=False) as progress:
        rounds = progress.add_task("rounds", total=1, rate="")
        tables = progress.add_task("tables", total=1, rate="")
        last_reconcile = last_tick = time.monotonic()
        last_commands = commands_before
        while state.status != "finished":
            time.sleep(0.5)
            now = time.monotonic()
            # A pass loads every live game of the round: big rounds are reconciled less often.
            current = state.current()
            if now - last_reconcile >= RECONCILE_EVERY_S + (len(current.games) / 20 if current else 0):
                state, last_reconcile = service.reconcile(services, url, tid), now
            else:
                state = service.load(services, tid)
            commands = _commands(services)
            rate = f"{(commands - last_commands) / max(now - last_tick, 1e-6):,.0f} commands/s"
            last_commands, last_tick = commands, now
            body = service.summary(state, full=False)
            finished_now = _finished_tables(services, state)
            progress.update(
                rounds, total=body["rounds"], completed=sum(r.closed for r in state.rounds), rate=""
            )
            progress.update(tables, total=max(1, body["tables"]), completed=finished_now,
                            description=f"round {body['round']} tables", rate=rate)  # fmt: skip
    return state


def _finished_tables(services: Services, state: State) -> int:
    from workers.jobs.tournament import game_statuses

    current = state.current()
    if current is None:
        return 0
    return sum(s == b"finished" for s in game_statuses(services.store, current.games).values())


def summary_line(state: State, commands: int, elapsed: float) -> str:
    games = sum(len(r.games) for r in state.rounds)
    rows = service.standings_json(state)
    first = rows[0] if rows else None
    lead = (
        f"winner {first['name']} with {first[state.settings.tie_breaks[0]]} {state.settings.tie_breaks[0]}"
        if first
        else ""
    )
    return (
        f"{state.settings.game} {state.settings.format}: {len(state.entrants)} players, {len(state.rounds)} rounds, "
        f"{games} games, {commands:,} commands in {elapsed:.0f} s ({games / max(elapsed, 1e-6) * 60:.1f} games/min); {lead}"
    )
