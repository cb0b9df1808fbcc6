"""A forger's tools for the forgery suite: a tournament's export folder in memory, and the chains of it
re-hashed after a change with the project's own functions (``events.chain``), so that every export check
that leaves the log alone passes the forgery's hashes."""

from __future__ import annotations

import base64
import gzip
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec

from domain.tournament import TableFinished, TournamentEvent
from events import codec
from events.chain import genesis, link
from events.envelope import Envelope, GameHeader
from events.tlog.note import Signer
from services.audit.chains import ExportChain, game_chain, tournament_chain
from tests.support.tlog import log_file, log_leaves

Lines = list[dict[str, Any]]
Events = list[tuple[TournamentEvent, dict[str, Any]]]
_event = msgspec.msgpack.Decoder(TournamentEvent)


class Folder(msgspec.Struct, kw_only=True):
    """A tournament export folder: its export's lines and each game's archive lines (raw, as written)."""

    tid: str
    tournament: Lines
    games: dict[str, list[bytes]]

    def copy(self) -> Folder:
        return Folder(
            tid=self.tid, tournament=[dict(line) for line in self.tournament], games=dict(self.games)
        )

    def chains(self) -> list[ExportChain]:
        own, _ = tournament_chain([json.dumps(line).encode() for line in self.tournament])
        assert own is not None
        games = [game_chain(lines) for lines in self.games.values()]
        return [own, *(chain for chain in games if chain is not None)]

    def write(self, path: Path, log: bytes) -> Path:
        path.mkdir(parents=True)
        (path / f"{self.tid}.jsonl").write_bytes(
            b"".join(json.dumps(ln).encode() + b"\n" for ln in self.tournament)
        )
        for game_id, lines in self.games.items():
            (path / f"{game_id}.jsonl.gz").write_bytes(
                gzip.compress(b"".join(ln + b"\n" for ln in lines), mtime=0)
            )
        (path / "log.jsonl").write_bytes(log)
        return path

    def log(self, signer: Signer) -> bytes:
        """The log a forger holding ``signer`` rebuilds from this folder's chains, and signs."""
        return log_file(log_leaves(self.chains()), signer)


# --- the tournament's chain --------------------------------------------------------------------------------


def events_of(lines: Lines) -> Events:
    return [
        (_event.decode(bytes.fromhex(line["payload"])), line) for line in lines if line["kind"] == "event"
    ]


def rechain(
    folder: Folder, edit: Callable[[Events], Events], header: Callable[[dict[str, Any]], None] | None = None
) -> None:
    """The tournament's events edited, renumbered and re-hashed from its (perhaps edited) header."""
    head = dict(folder.tournament[0])
    if header is not None:
        header(head)
    others = [line for line in folder.tournament[1:] if line["kind"] not in ("event", "end")]
    end = next(dict(line) for line in folder.tournament if line["kind"] == "end")
    prev = genesis(msgspec.convert({k: v for k, v in head.items() if k != "kind"}, type=GameHeader))
    out: Lines = [head]
    for seq, (event, line) in enumerate(edit(events_of(folder.tournament)), start=1):
        new = {**line, "seq": seq, "type": codec.event_type(event)[0], "payload": codec.encode_event(event).hex(),
               "prev_hash": prev, "event": json.loads(msgspec.json.encode(event))}  # fmt: skip
        fields = {k: v for k, v in new.items() if k not in ("kind", "event", "hash")}
        fields["payload"] = bytes.fromhex(fields["payload"])
        new["hash"] = prev = link(msgspec.convert(fields, type=Envelope))
        out.append(new)
    end.update(last_seq=len(out) - 1, last_hash=prev, events=len(out) - 1, games=len(others))
    folder.tournament = [*out, *others, end]


def replaced(
    events: Events, match: Callable[[TournamentEvent], bool], change: Callable[[Any], Any]
) -> Events:
    return [(change(event) if match(event) else event, line) for event, line in events]


# --- a game's chain ----------------------------------------------------------------------------------------


def regame(
    folder: Folder,
    game_id: str,
    header: Callable[[dict[str, Any]], None] | None = None,
    event: Callable[[dict[str, Any]], None] | None = None,
    command: Callable[[dict[str, Any]], None] | None = None,
    source: str | None = None,
) -> None:
    """A game's archive (or ``source``'s, relabelled) edited and re-hashed, and the tournament made to agree:
    the result and game line that named its old final hash name the new one."""
    raw = folder.games[source or game_id]
    lines = [msgspec.json.decode(line) for line in raw]
    head = lines[0]
    head["game_id"] = game_id
    if header is not None:
        header(head)
    gheader = msgspec.convert({k: v for k, v in head.items() if k != "kind"}, type=GameHeader)
    prev, out = genesis(gheader), []
    old_last = next(line["last_hash"] for line in lines if line["kind"] == "end")
    for line, data in zip(lines, raw, strict=True):
        if line["kind"] == "event":
            if event is not None:
                event(line)
            line["prev_hash"] = prev
            line["hash"] = prev = link(_envelope(game_id, line))
        elif line["kind"] == "command" and command is not None:
            before = dict(line)
            command(line)
            if line == before:
                out.append(data)  # untouched: the very bytes, as the Commands digest read them
                continue
        elif line["kind"] == "end":
            line["last_hash"] = prev
        elif line["kind"] == "command":
            out.append(data)
            continue
        out.append(msgspec.json.encode(line))
    folder.games[game_id] = out
    _refit(folder, old_last if source is None else _last(folder, game_id, raw), prev)


def _last(folder: Folder, game_id: str, raw: list[bytes]) -> str:
    """The final hash the tournament names for ``game_id`` (its own archive's, before the relabelling)."""
    return next(str(line["final_hash"]) for line in folder.tournament if line.get("game_id") == game_id
                and line["kind"] == "game")  # fmt: skip


def _envelope(game_id: str, line: dict[str, Any]) -> Envelope:
    return Envelope(game_id=game_id, seq=line["seq"], type=line["type"], version=line["version"],
                    payload=base64.b64decode(line["payload"]), command_id=line["command_id"], seat=line["seat"],
                    ts_ms=line["ts_ms"], prev_hash=line["prev_hash"],
                    seed=bytes.fromhex(line["seed"]) if line.get("seed") else None)  # fmt: skip


def _refit(folder: Folder, old: str, new: str) -> None:
    for line in folder.tournament:
        if line["kind"] == "game" and line.get("final_hash") == old:
            line["final_hash"] = new
            line["archive_last_hash"] = new if line.get("archive_last_hash") else None
    rechain(folder, lambda events: replaced(
        events, lambda e: isinstance(e, TableFinished) and e.final_hash == old,
        lambda e: msgspec.structs.replace(e, final_hash=new)))  # fmt: skip
