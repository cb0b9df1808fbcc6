"""``harbormaster tournament``: run, create, start, pause, resume, status, standings, export."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import msgspec
import structlog
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from domain.engine import Game
from domain.tournament import FORMATS, Entrant, State
from services import tournament_service as service
from services.audit.anchor import Anchors
from services.bootstrap import Services
from services.cli_common import UserError, plain_number, plain_numbers
from services.config import Settings
from workers.metrics import METRICS_KEY

RECONCILE_EVERY_S = 3.0
log = structlog.get_logger("tournament")


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
    check = verbs.add_parser(
        "verify",
        help="check a tournament export offline: chain, every decision, every result against its game",
    )
    check.add_argument("file", help="the export, or its folder (<id>.jsonl, log.jsonl, archives)")
    check.add_argument(
        "--archives", help="the folder of the games' <game id>.jsonl.gz (default: HARBORMASTER_ARCHIVE's)"
    )
    from services.anchor_cli import add_flags

    add_flags(check)  # the anchors; --log defaults to the folder's log.jsonl
    link = verbs.add_parser(
        "link", help="a person's current table and the link that opens it with their seat"
    )
    link.add_argument("tournament_id")
    link.add_argument("--key", required=True, help="the person's key (printed once by create)")
    out = verbs.add_parser("withdraw", help="withdraw a player: never paired again, results kept")
    out.add_argument("tournament_id")
    out.add_argument("player", type=plain_number, help="the player's number (as in standings)")
    out.add_argument("--reason", default="")
    judge = verbs.add_parser(
        "adjudicate", help="decide a table whose game has not ended: its ranking, a reason"
    )
    judge.add_argument("tournament_id")
    judge.add_argument("round", type=plain_number)
    judge.add_argument("table", type=plain_number, help="the table's number, from 1")
    judge.add_argument(
        "--ranking", required=True, type=plain_numbers, help="the table's players first to last, e.g. 3,0,5"
    )
    judge.add_argument("--reason", required=True)
    swap = verbs.add_parser("replace", help="give a person's place to another person (prints their new key)")
    swap.add_argument("tournament_id")
    swap.add_argument("player", type=plain_number)
    swap.add_argument("--name", required=True, help="the newcomer's name")
    stop = verbs.add_parser("cancel", help="cancel a tournament: nothing is paired or recorded after it")
    stop.add_argument("tournament_id")
    stop.add_argument("--reason", default="")
    listing = verbs.add_parser("list", help="the tournaments, newest first: id, game, format, status, round")
    listing.add_argument("--limit", type=int, default=50)
    helps = {"start": "start a tournament (its first round is paired)", "pause": "pause a tournament",
             "resume": "resume a paused tournament", "status": "a tournament's status, round and tables",
             "standings": "a tournament's standings", "export": "export a tournament for tournament verify"}  # fmt: skip
    for verb in ("start", "pause", "resume", "status", "standings", "export"):
        parser = verbs.add_parser(verb, help=helps[verb])
        parser.add_argument("tournament_id")
        if verb == "standings":
            parser.add_argument("--top", type=int, default=0, help="rows to show (0: all)")
        if verb == "export":
            parser.add_argument("--to", help="a folder: the export, its games' archives, log.jsonl")


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
    p.add_argument(
        "--no-show", type=float, default=0.0, help="seconds a seat that never moved may be to act (0: off)"
    )
    p.add_argument("--id", help="the tournament id (default: random)")
    p.add_argument("--person", action="append", default=[], help="a person entrant's name (repeatable)")


def _spec(args: argparse.Namespace) -> service.TournamentSpec:
    if getattr(args, "file", None):
        try:
            return msgspec.json.decode(Path(args.file).read_bytes(), type=service.TournamentSpec)
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            raise UserError(f"{args.file}: not a tournament: {exc}") from exc
    if not args.game:
        raise ValueError("--game or --file is needed")
    return service.TournamentSpec(
        game=args.game, format=args.format, rounds=args.rounds, table_size=args.table_size or None,
        players=args.players, bots=[b for b in args.bots.split(",") if b], advance=args.advance, id=args.id,
        move_limit_s=args.move_limit, total_limit_s=args.total_limit, no_show_s=args.no_show,
        on_timeout=args.on_timeout.replace("-", "_"), entrants=[Entrant(name=name) for name in args.person],
    )  # fmt: skip


def run_verb(services: Services, url: str, args: argparse.Namespace) -> int:
    out = sys.stdout
    if args.verb == "run":
        return _run(services, url, args)
    if args.verb == "create":
        from services.tournament_people import make_organiser_key

        tid, made = service.create_with_keys(services, _spec(args))
        print(tid, file=out)
        names = service.load(services, tid).entrants
        for index, key in sorted(made.items()):  # shown this once: Redis keeps only the digest
            print(json.dumps({"player": index, "name": names[index].name, "key": key}), file=out)
        print(json.dumps({"organiser_key": make_organiser_key(services, tid)}), file=out)  # shown once
        return 0
    if args.verb == "list":
        for tid in service.list_ids(services, 0, max(1, args.limit)):
            print(json.dumps(service.summary(service.load(services, tid), full=False)), file=out)
        return 0
    tid = args.tournament_id
    if args.verb == "link":
        from services.tournament_people import current_table, player_of

        person = player_of(services, tid, args.key)
        if person is None:
            raise UserError(f"that key is not the key of a person in tournament {tid}")
        table = current_table(service.load(services, tid), person, args.key)
        if table["link"] is not None and services.settings.public_url:  # a link the person can open as is
            table["link"] = services.settings.public_url + table["link"]
        print(json.dumps(table), file=out)
        return 0
    if args.verb == "replace":
        key = service.replace_person(services, url, tid, args.player, args.name)
        print(json.dumps({"player": args.player, "name": args.name, "key": key}), file=out)  # shown once
        return 0
    if args.verb in ("withdraw", "cancel", "adjudicate"):
        if args.verb == "withdraw":
            service.withdraw(services, url, tid, args.player, args.reason)
        elif args.verb == "adjudicate":
            service.adjudicate(services, url, tid, args.round, args.table, args.ranking, args.reason)
        else:
            service.cancel(services, url, tid, args.reason)
        print(json.dumps(service.summary(service.load(services, tid), full=False)), file=out)
        return 0
    if args.verb in ("start", "pause", "resume"):
        getattr(service, args.verb)(services, url, tid)
        print(json.dumps(service.describe(services, tid, full=False)), file=out)
        return 0
    if args.verb == "status":
        print(json.dumps(service.describe(services, tid, full=False)), file=out)
        return 0
    if args.verb == "standings":
        Console().print(standings_table(service.load(services, tid), args.top))
        return 0
    if args.to:  # the auditor's folder: what tournament verify FOLDER proves against the log
        from services.export_folder import write_folder

        print(json.dumps(write_folder(services, tid, Path(args.to))), file=out)
        return 0
    for line in service.export_lines(services, tid):
        sys.stdout.buffer.write(line + b"\n")
    sys.stdout.buffer.flush()
    return 0


def verify_file(
    path: str,
    archives: Path | None,
    anchors: Anchors | None = None,
    games: Mapping[str, Game[Any, Any, Any, Any]] | None = None,
) -> int:
    """``tournament verify FILE`` (no Redis needed): 0 when every result is proven against its game's
    archive, 1 with each problem found, 3 when nothing is wrong but some results had no archive at hand.
    With ``anchors``, then the export against the log and what the auditor holds (``anchor_cli``): 1 on a
    difference. ``games``: the rules the archives are replayed by (``None``: the hosted games alone)."""
    code = _verify_export(path, archives, games)
    if anchors is None:
        return code
    from services.anchor_cli import verify_tournament

    anchored = verify_tournament(Path(path).read_bytes().splitlines(), archives, anchors)
    return 1 if anchored == 1 else code


def _verify_export(
    path: str, archives: Path | None, games: Mapping[str, Game[Any, Any, Any, Any]] | None
) -> int:
    from services.audit.report_text import tournament_lines
    from services.audit.tournament_verify import verify_tournament_lines

    lines = read_export(path)
    report = verify_tournament_lines((line for line in lines if line.strip()), archives, games)
    printed = tournament_lines(report, archives)  # every line escaped: the file cannot paint the terminal
    for line in printed.err:
        sys.stderr.write(line + "\n")
    for line in printed.out:
        sys.stdout.write(line + "\n")
    return printed.code


def read_export(path: str) -> list[bytes]:
    """The export's lines; a file missing or unreadable is one line for the user (``UserError``)."""
    try:
        return Path(path).read_bytes().splitlines()
    except OSError as exc:
        raise UserError(f"cannot read {path!r}: {exc.strerror or exc}") from None


def standings_table(state: State, top: int = 0) -> Table:
    rows = service.standings_json(state)
    table = Table(
        title=f"{state.settings.game} {state.settings.format} — {state.tournament_id} ({state.status})"
    )
    table.add_column("#", justify="right")
    table.add_column("no.", justify="right")  # the number withdraw, replace and adjudicate take
    table.add_column("player")
    for name in state.settings.tie_breaks:
        table.add_column(name.replace("_", " "), justify="right")
    table.add_column("tables", justify="right")
    table.add_column("rating", justify="right")  # as the page shows it: mu - 3 sigma, then mu and sigma
    table.add_column("μ / σ", justify="right")
    for row in rows[: top or None]:
        rating = row["rating"]
        values = [str(row[name]) for name in state.settings.tie_breaks]
        name = row["name"] + (" (withdrawn)" if row["withdrawn"] else "")
        table.add_row(str(row["rank"]), str(row["player"]), name, *values, str(row["tables"]),
                      f"{rating['ordinal']:.1f}", f"{rating['mu']:.2f} / {rating['sigma']:.2f}")  # fmt: skip
    table.caption = (
        "no.: the player's number (withdraw, replace); rating: OpenSkill (Plackett-Luce), mu - 3 sigma"
    )
    return table


def _spawn_workers(settings: Settings, url: str, args: argparse.Namespace) -> list[subprocess.Popen[bytes]]:
    if args.external_workers:
        return []
    from services.children import spawn

    quiet = settings.quiet_children()  # the workers' own logs would scroll the progress bar away
    children = [spawn(["worker"], url, quiet) for _ in range(max(1, args.workers))]
    children += [spawn(["rq-worker", "--no-fork"], url, quiet) for _ in range(max(1, args.rq_workers))]
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
    spec = _spec(args)
    if args.person:  # nobody would hold their key: the run would wait for their moves for ever
        raise UserError(
            "tournament run is for bot tournaments; to seat people use tournament create --person, then start"
        )
    tid = service.create(services, spec)
    services.bus.ensure_groups()
    children = _spawn_workers(services.settings, url, args)
    if children:
        _wait_for_runners(services, max(1, args.rq_workers), console)
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


def _wait_for_runners(services: Services, wanted: int, console: Console, timeout_s: float = 30.0) -> None:
    """Round 1 waits for the bot runners of the rq workers just started (issue 33.9: without them its bots
    played one rq job a move, about 4x slower); past ``timeout_s`` it goes on with what is up."""
    from workers.botrunner import LEASE_TTL_MS, RUNNERS_KEY

    deadline = time.monotonic() + timeout_s
    with console.status("starting the workers' bot runners"):
        while time.monotonic() < deadline:
            alive = services.redis.zcount(RUNNERS_KEY, time.time() - LEASE_TTL_MS / 1000, "+inf")
            if alive >= wanted:
                return
            time.sleep(0.1)
    log.warning("bot_runners_late", wanted=wanted, waited_s=timeout_s)


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
    from workers.jobs.round_open import game_statuses

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
