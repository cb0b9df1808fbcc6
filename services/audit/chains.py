"""The chains an export holds, read for the anchor checks: each game's or tournament's header, its
envelopes as exported, whether its last event ends it, and (for a game) its command lines exactly as
written, which a ``Commands`` leaf digests. Read leniently: whatever the export's own checks say, the
anchors compare what is there with what the log holds.
"""

from __future__ import annotations

import gzip
import hashlib
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import msgspec

from domain.tournament import TournamentCancelled, TournamentCreated, TournamentEvent, TournamentFinished
from events.envelope import Envelope, GameHeader
from events.tlog.leaves import Stream, stream_of
from services.audit.jsonl import LINE_DECODER, CommandLine, EventLine, HeaderLine

_tournament_event = msgspec.msgpack.Decoder(TournamentEvent)


class ExportChain(msgspec.Struct, kw_only=True):
    header: GameHeader
    envelopes: list[Envelope]
    finished: bool
    command_lines: list[bytes] | None = None
    """A game's command lines, raw (``None``: not at hand, as for a tournament)."""

    @property
    def stream(self) -> Stream:
        return stream_of(self.header.game)

    @property
    def name(self) -> str:
        return f"{self.stream} {safe(self.header.game_id)}"


class Listed(msgspec.Struct, frozen=True, kw_only=True):
    """A tournament's game line: the table it names and the final hash its result records."""

    where: str
    game_id: str
    final_hash: str | None


def safe(text: str) -> str:
    """Text from a file, fit for a terminal: control and bidi characters shown as escapes."""
    return "".join(c if c.isprintable() else f"\\u{ord(c):04x}" for c in text)


def short(digest: str) -> str:
    return safe(digest[:16]) + "…" if len(digest) > 16 else safe(digest)


def read_game_chain(path: Path) -> ExportChain | None:
    """A game's export or archive (``.gz``) as a chain; ``None`` when it has no readable header."""
    opener: Any = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rb") as handle:
        return game_chain(handle)


def game_chain(lines: Iterable[bytes]) -> ExportChain | None:
    header: GameHeader | None = None
    events: list[EventLine] = []
    commands: list[bytes] = []
    for raw in lines:
        if not raw.strip():
            continue
        try:
            item = LINE_DECODER.decode(raw)
        except (msgspec.DecodeError, msgspec.ValidationError):
            continue  # the export's own checks name it
        if isinstance(item, HeaderLine):
            header = GameHeader(game_id=item.game_id, game=item.game, seats=item.seats, options=item.options,
                                seed_commitment=item.seed_commitment, created_ms=item.created_ms)  # fmt: skip
        elif isinstance(item, EventLine):
            events.append(item)
        elif isinstance(item, CommandLine):
            commands.append(raw.rstrip(b"\n"))
    if header is None:
        return None
    envelopes = [_envelope(header.game_id, line) for line in events if line.undecodable is None]
    finished = bool(envelopes) and envelopes[-1].seed is not None
    return ExportChain(header=header, envelopes=envelopes, finished=finished, command_lines=commands)


def _envelope(game_id: str, line: EventLine) -> Envelope:
    return Envelope(game_id=game_id, seq=line.seq, type=line.type, version=line.version, payload=line.payload,
                    command_id=line.command_id, seat=line.seat, ts_ms=line.ts_ms, prev_hash=line.prev_hash,
                    hash=line.hash, seed=bytes.fromhex(line.seed) if line.seed is not None else None)  # fmt: skip


def tournament_chain(lines: Iterable[bytes]) -> tuple[ExportChain | None, list[Listed]]:
    """A tournament export's own chain and its game lines."""
    header: GameHeader | None = None
    envelopes: list[Envelope] = []
    listed: list[Listed] = []
    for raw in lines:
        try:
            line: Any = msgspec.json.decode(raw)
            kind = line.get("kind") if isinstance(line, dict) else None
            if kind == "header":
                header = msgspec.convert({k: v for k, v in line.items() if k != "kind"}, type=GameHeader)
            elif kind == "event":
                fields = {k: v for k, v in line.items() if k not in ("kind", "event")}
                fields["payload"] = bytes.fromhex(str(fields["payload"]))
                envelopes.append(msgspec.convert(fields, type=Envelope))
            elif kind == "game":
                where = f"round {line['round']} table {line['table']} ({safe(str(line['game_id']))})"
                listed.append(
                    Listed(where=where, game_id=str(line["game_id"]), final_hash=line.get("final_hash"))
                )
        except (msgspec.DecodeError, msgspec.ValidationError, ValueError, TypeError, KeyError):
            continue  # the export's own checks name it
    if header is None:
        return None, listed
    return ExportChain(header=header, envelopes=envelopes, finished=_ends(envelopes)), listed


def _ends(envelopes: Sequence[Envelope]) -> bool:
    if not envelopes:
        return False
    try:
        last = _tournament_event.decode(envelopes[-1].payload)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return False
    return isinstance(last, (TournamentFinished, TournamentCancelled))


def pairing_seed_problem(chain: ExportChain) -> str | None:
    """The tournament's pairing seed (public in its creation) must be the one its header committed to."""
    if not chain.envelopes:
        return None
    try:
        created = _tournament_event.decode(chain.envelopes[0].payload)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None  # the export's own checks name it
    if not isinstance(created, TournamentCreated):
        return None
    revealed = hashlib.sha256(created.pairing_seed).hexdigest()
    if revealed == chain.header.seed_commitment:
        return None
    return (
        f"{chain.name}: its pairing seed hashes to {short(revealed)}, not to the seed commitment in its header "
        f"({short(chain.header.seed_commitment)}): the commitment or the seed was replaced"
    )
