"""``harbormaster new|send|log|export|verify|games``: the verbs that work on one game or list them."""

from __future__ import annotations

import argparse
import json
import sys
import time
import zlib
from pathlib import Path
from typing import Any

import msgspec

from domain.text import escaped
from events import codec
from events.archived import archived_envelopes
from events.command_ids import reserved_message, reserved_prefix
from services.bootstrap import Services, load_games
from services.cli_common import UserError, json_arg, plain_number
from services.config import Settings
from services.games import checked_game_id, create_game
from services.gateway.access.auth import mint_tokens


def cmd_new(services: Services, url: str, args: argparse.Namespace) -> int:
    if args.game not in services.store.games:
        raise UserError(
            f"unknown game {args.game!r}; choose one of {', '.join(sorted(services.store.games))}"
        )
    options = json_arg(args.options, "--options")
    bots = {_seat_number(seat, "--bots"): name for seat, name in json_arg(args.bots, "--bots").items()}
    game_id, meta = create_game(
        services,
        args.game,
        args.seats,
        options,
        game_id=None if args.id is None else checked_game_id(args.id, client_chosen=True),
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
            | {
                "seats": sorted(seats, key=lambda s: str(s["seat"]).zfill(3)),
                "watch": f"{services.settings.public_url or ''}/games/{game_id}",  # absolute when it is known
            }
        )
    )
    return 0


def _seat_number(text: str, option: str) -> int:
    """A seat number written by the user: ASCII digits only (``int`` would take ``"١"`` as 1 and refuse
    ``"²"``, which ``str.isdigit`` lets through, with a traceback)."""
    if not (text.isascii() and text.isdigit() and len(text) <= 4):
        raise UserError(f"{option}: a seat is a number in ASCII digits, not {text[:20]!r}")
    return int(text)


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
    reserved = reserved_prefix(args.id) if args.id is not None else None
    if reserved is not None:
        raise UserError(reserved_message(reserved))
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
    envelopes = (  # a game trimmed from Redis is read from its archive
        (e for e in archived_envelopes(meta.header, meta.archive) if e.seq > args.from_seq)
        if meta.archive
        else services.store.read(args.game_id, after_seq=args.from_seq)
    )
    for envelope in envelopes:
        event = codec.decode_event(game, envelope)
        line = {"seq": envelope.seq, "command_id": envelope.command_id, "seat": envelope.seat}
        print(json.dumps(line | {"event": msgspec.to_builtins(event)}))
    return 0


def cmd_export(services: Services, args: argparse.Namespace) -> int:
    from services.export import export_lines

    out = sys.stdout.buffer
    for line in export_lines(services.store, args.game_id):
        out.write(line + b"\n")
    out.flush()
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    from services import anchor_cli
    from services.audit.chains import read_game_chain
    from services.audit.verify import verify_file

    if args.file.startswith("s3://"):  # an archive in the bucket: fetched, then verified as a file
        from services.archive_bucket import BucketError, fetched

        try:
            settings = Settings.from_env()
            with fetched(args.file, settings.archive_s3_endpoint) as path:
                report = verify_file(path, load_games(settings))
                chain = read_game_chain(path)
        except BucketError as exc:
            raise UserError(str(exc)) from exc
    else:
        path = Path(args.file)
        if not path.exists():
            raise UserError(f"no such file: {path}")
        try:  # a folder, a file not ours to read, a damaged gzip: one line, not a traceback
            report = verify_file(path, load_games(Settings.from_env()))
            chain = read_game_chain(path)
        except (OSError, EOFError, zlib.error) as exc:
            raise UserError(f"cannot read {path}: {exc}") from None
    problem = report.first_problem()
    if problem is not None:
        # Reasons may quote the file (ids, values): escaped, so that a forged one cannot paint the terminal.
        print(f"FAILED at seq {problem.seq}: {escaped(problem.reason)}", file=sys.stderr)
        for other in report.problems[1:]:
            print(f"  also at seq {other.seq}: {escaped(other.reason)}", file=sys.stderr)
        anchor_cli.verify_chain(chain, args)  # what the anchors say of it too: which event, which field
        return 1
    if report.finished:
        checked = "finished game, every decision re-checked"
    else:  # nothing in a live game's export can show what comes after it: say how far it reaches
        checked = (
            f"live game, verified up to seq {report.last_seq} "
            "(chain and replay; decisions are re-checked once the game ends and reveals its seed)"
        )
    chat = f"; {report.chat} chat lines, counted, outside the hash chain" if report.chat else ""
    timeouts = f"; {report.timeouts} clock timeouts checked" if report.timeouts else ""
    print(
        f"OK {escaped(report.game)} {escaped(report.game_id)}: {report.events} events, {report.commands} "
        f"commands; {checked}{timeouts}{chat}"
    )
    anchored = anchor_cli.verify_chain(chain, args)
    return _conflict(path) or anchored


def _conflict(path: Path) -> int:
    """1 when another, different archive of the game lies beside the file (``services/archive_conflict.py``):
    the file verifies, but it is not the game's one history."""
    from services.archive_conflict import CONFLICT_MARK, conflict_files

    if CONFLICT_MARK in path.name:
        print(f"CONFLICT: {escaped(path.name)} is the second archive of its game, kept beside the verified "
              "one (docs/reliability.md)", file=sys.stderr)  # fmt: skip
        return 1
    others = conflict_files(path)
    for other in others:
        print(f"CONFLICT: a different archive of this game lies beside it: {escaped(other.name)} "
              "(docs/reliability.md)", file=sys.stderr)  # fmt: skip
    return 1 if others else 0


def cmd_games(services: Services, args: argparse.Namespace) -> int:
    """The games, newest first, ``--limit`` of them (0: all); how many more there are is said on stderr."""
    listed = services.store.list_games(live_only=args.live, limit=args.limit or 1 << 62)
    for game_id in listed:
        meta = services.store.meta(game_id)
        print(
            json.dumps(
                {"game_id": game_id, "game": meta.header.game, "status": meta.status, "seq": meta.last_seq}
            )
        )
    total = services.store.count_games(live_only=args.live)
    if total > len(listed):
        print(f"the newest {len(listed)} of {total} games; --limit N or --limit 0 for all", file=sys.stderr)
    return 0


def cmd_archive(services: Services, args: argparse.Namespace) -> int:
    """Archive now, in this process: the finished games named, or every finished game not archived yet."""
    from services.archive import NotFinished, archive_game, archive_missing

    folder = Path(args.to) if args.to else services.settings.archive_dir
    if folder is None:
        raise UserError("no archive folder: HARBORMASTER_ARCHIVE is off; name one with --to")
    try:  # named: archived and verified unless a verified archive exists (that one is kept as it is)
        written = [{"game_id": g} | archive_game(services.store, g, folder) for g in args.game_ids]
    except NotFinished as exc:
        raise UserError(str(exc)) from None
    if not args.game_ids:
        written = archive_missing(services.store, services.store.list_games(), folder)
    for entry in written:
        print(json.dumps(entry))
    conflicts = [e for e in written if e.get("conflict")]
    for entry in conflicts:  # the first verified file is kept; neither is the game's one history
        print(f"CONFLICT {entry['game_id']}: {entry['file']} (kept, ends at {entry['last_hash']}) and "
              f"{entry['conflict']['file']} (ends at {entry['conflict']['last_hash']}) differ; "
              "see docs/reliability.md", file=sys.stderr)  # fmt: skip
    if conflicts:
        return 1
    unverified = [e["game_id"] for e in written if not e.get("verified") and not e.get("busy")]
    if unverified:  # an upload the bucket refused, or a file that did not verify: not archived
        print(f"not verified (see the log): {', '.join(unverified)}", file=sys.stderr)
        return 1
    return 0


def add_parsers(sub: Any) -> None:
    """The game verbs' subcommands, added to ``harbormaster``'s parser."""
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
    send.add_argument("seat", type=plain_number)
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
    verify.add_argument(
        "file", help="an export or archive file, or an archive in the bucket: s3://bucket/key"
    )
    from services.anchor_cli import add_flags

    add_flags(verify)  # --log, --checkpoint, --receipts, --log-key, --witness: what binds the operator
    games = sub.add_parser("games", help="list games")
    games.add_argument("--live", action="store_true")
    games.add_argument("--limit", type=int, default=50, help="how many, newest first (0: all; default 50)")
    archive = sub.add_parser("archive", help="write finished games as <id>.jsonl.gz (verify reads them)")
    archive.add_argument("game_ids", nargs="*", help="default: every finished game not archived yet")
    archive.add_argument("--to", help="the folder (default: HARBORMASTER_ARCHIVE or <data dir>/archive)")
