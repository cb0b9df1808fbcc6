"""The forgeries of issue 41's finding 2, each made by a forger who holds the log's signing key (the chains it
touches re-hashed with ``tests/support/forger.py``), each with what ``tournament verify`` must say of it when
the forger keeps the old log and changes only the export."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec

from domain.tournament import (
    PlayerWithdrawn,
    RoundPaired,
    TableFinished,
    TournamentCancelled,
    TournamentCreated,
    TournamentFinished,
    TournamentStarted,
)
from domain.tournament import rules as tournament_rules
from events.tlog.leaves import Head, Sealed, decode
from events.tlog.note import Signer
from tests.support.forger import Events, Folder, events_of, rechain, regame, replaced

GAME = "tamper-r2-t1"
"""The game the game forgeries change, and whose player kept receipts."""
YEAR_MS = 365 * 24 * 3600 * 1000


class Honest(msgspec.Struct, kw_only=True):
    folder: Folder
    leaves: list[bytes]
    signer: Signer
    checkpoint: Path
    receipts: Path
    path: Path


# --- where a rewritten chain shows against the old log ------------------------------------------------------


def rewritten(honest: Honest, forged: Folder, stream: str, chain_id: str) -> list[str]:
    """What names where ``chain_id``'s history first differs from its logged heads: the first head at or after
    the first changed event, and the last head before it, which still matches."""
    before = {c.header.game_id: c for c in honest.folder.chains()}[chain_id]
    after = {c.header.game_id: c for c in forged.chains()}[chain_id]
    first = next((a.seq for a, b in zip(before.envelopes, after.envelopes, strict=False) if a.hash != b.hash),
                 min(len(before.envelopes), len(after.envelopes)) + 1)  # fmt: skip
    heads = [
        leaf
        for leaf in map(decode, honest.leaves)
        if isinstance(leaf, (Head, Sealed)) and leaf.id == chain_id
    ]
    hit = next(h for h in heads if h.seq >= first)
    name = f"{stream} {chain_id}"
    if hit.seq > len(after.envelopes):
        return [f"{name}: the log holds its event {hit.seq}", f"export ends at event {len(after.envelopes)}"]
    matched = max([h.seq for h in heads if h.seq < first], default=0)
    return [f"{name}: event {hit.seq} differs from the head the log holds",
            f"the history was rewritten after event {matched}, at or before event {hit.seq}"]  # fmt: skip


def tournament_moved(honest: Honest, forged: Folder) -> list[str]:
    return rewritten(honest, forged, "tournament", "tamper")


# --- the forgeries of finding 2 -----------------------------------------------------------------------------

Forgery = Callable[[Honest], tuple[Folder, list[str]]]


def _created(change: Callable[[TournamentCreated], TournamentCreated]) -> Forgery:
    def forge(honest: Honest) -> tuple[Folder, list[str]]:
        forged = honest.folder.copy()
        rechain(forged, lambda events: replaced(events, lambda e: isinstance(e, TournamentCreated), change))
        return forged, tournament_moved(honest, forged)

    return forge


def _table(events: Events, number: int, table: int) -> TableFinished:
    return next(
        e for e, _ in events if isinstance(e, TableFinished) and (e.round, e.table) == (number, table)
    )


def tables_swapped(honest: Honest) -> tuple[Folder, list[str]]:
    """Round 1's two games swapped between its tables, each result following its game."""
    forged = honest.folder.copy()

    def swap(events: Events) -> Events:
        out: Events = []
        for event, line in events:
            if isinstance(event, RoundPaired) and event.round == 1:
                event = msgspec.structs.replace(event, games=event.games[::-1])
            elif isinstance(event, TableFinished) and event.round == 1:
                other = _table(events, 1, 1 - event.table)
                event = msgspec.structs.replace(event, final_hash=other.final_hash)
            out.append((event, line))
        return out

    rechain(forged, swap)
    for line in forged.tournament:
        if line["kind"] == "game" and line["round"] == 1:
            line["table"] = 3 - line["table"]
    return forged, tournament_moved(honest, forged)


def game_relabelled(honest: Honest) -> tuple[Folder, list[str]]:
    """Round 1's first game relabelled as round 2's, its result and game line following it."""
    forged = honest.folder.copy()
    regame(forged, GAME, source="tamper-r1-t1")
    return forged, [f"game {GAME}: the seed commitment in its header", "share the seed commitment"]


def table_redealt(honest: Honest) -> tuple[Folder, list[str]]:
    """A table dealt again: a new seed committed in its header and revealed at its end."""
    forged = honest.folder.copy()
    seed = b"another deal" * 2

    def last(line: dict[str, Any]) -> None:
        if line.get("seed"):
            line["seed"] = seed.hex()

    regame(
        forged, GAME, header=lambda h: h.update(seed_commitment=hashlib.sha256(seed).hexdigest()), event=last
    )
    return forged, [f"game {GAME}: the seed commitment in its header"]


def winner_withdrawn(honest: Honest) -> tuple[Folder, list[str]]:
    """The winner withdrawn just before the last round closed."""
    forged = honest.folder.copy()
    winner = next(e for e, _ in events_of(forged.tournament) if isinstance(e, TournamentFinished)).winners[0]

    def withdraw(events: Events) -> Events:
        at = max(i for i, (e, _) in enumerate(events) if isinstance(e, TableFinished))
        line = {**events[at][1], "command_id": f"withdraw-{winner}"}
        return [*events[:at], (PlayerWithdrawn(player=winner, reason="left"), line), *events[at:]]

    rechain(forged, withdraw)
    return forged, tournament_moved(honest, forged)


def winner_move_timeout(honest: Honest) -> tuple[Folder, list[str]]:
    """The winner's last move in a game relabelled the clock's timeout (its HMAC tag zeroed)."""
    forged = honest.folder.copy()
    commands = [msgspec.json.decode(line) for line in forged.games[GAME] if b'"kind":"command"' in line]
    move = [c for c in commands if c["status"] == "applied" and c["origin"] == "bot"][-1]
    clock_id = f"timeout-{move['at_seq']}-{move['seat']}-{'0' * 20}"

    def event(line: dict[str, Any]) -> None:
        if move["first_seq"] <= line["seq"] <= move["last_seq"]:
            line["command_id"] = clock_id

    def command(line: dict[str, Any]) -> None:
        if line["command_id"] == move["command_id"] and line["seat"] == move["seat"]:
            line.update(command_id=clock_id, origin="clock")

    regame(forged, GAME, event=event, command=command)
    return forged, rewritten(honest, forged, "game", GAME)


def bot_commands_as_player(honest: Honest) -> tuple[Folder, list[str]]:
    """Every bot command of a game relabelled a player's (outside the hash chain: only the digest binds it)."""
    forged = honest.folder.copy()
    regame(forged, GAME, command=lambda line: line.update(origin="seat") if line["origin"] == "bot" else None)
    return forged, [f"game {GAME}: its", "command records are not the", "its origin"]


def played_table_adjudicated(honest: Honest) -> tuple[Folder, list[str]]:
    """A played table recorded as the organiser's adjudication, its real archive still in the folder."""
    forged = honest.folder.copy()
    rechain(forged, lambda events: replaced(
        events, lambda e: isinstance(e, TableFinished) and (e.round, e.table) == (2, 0),
        lambda e: tournament_rules.adjudicated_result(e.round, e.table, e.ranking, e.final_hash, "no result")))  # fmt: skip
    return forged, tournament_moved(honest, forged)


def timestamps_year_back(honest: Honest) -> tuple[Folder, list[str]]:
    forged = honest.folder.copy()
    rechain(forged, lambda events: [(e, {**line, "ts_ms": line["ts_ms"] - YEAR_MS}) for e, line in events],
            header=lambda h: h.update(created_ms=h["created_ms"] - YEAR_MS))  # fmt: skip
    return forged, [
        "tournament tamper: its header (game, seats, options or creation time) is not the one the log"
    ]


def game_header_time(honest: Honest) -> tuple[Folder, list[str]]:
    forged = honest.folder.copy()
    regame(forged, GAME, header=lambda h: h.update(created_ms=h["created_ms"] - 3_600_000))
    return forged, [f"game {GAME}: its header (game, seats, options or creation time) is not the one the log"]


def seed_commitment_replaced(honest: Honest) -> tuple[Folder, list[str]]:
    forged = honest.folder.copy()
    rechain(forged, lambda events: events, header=lambda h: h.update(seed_commitment="ab" * 32))
    return forged, ["tournament tamper: the seed commitment in its header", "its pairing seed hashes to"]


def rating_seeds_rescaled(honest: Honest) -> tuple[Folder, list[str]]:
    forged = honest.folder.copy()
    rechain(forged, lambda events: replaced(events, lambda e: isinstance(e, TournamentStarted), lambda e: msgspec.structs.replace(
        e, seeds=tuple(s * 2 + 1 for s in (e.seeds or (0.0,) * 6)))))  # fmt: skip
    return forged, tournament_moved(honest, forged)


def round_cancelled(honest: Honest) -> tuple[Folder, list[str]]:
    """Round 2 cancelled: its results dropped, the tournament cancelled, its game lines nulled."""
    forged = honest.folder.copy()

    def cancel(events: Events) -> Events:
        at = next(i for i, (e, _) in enumerate(events) if isinstance(e, TableFinished) and e.round == 2)
        line = {**events[at][1], "command_id": "cancel"}
        return [*events[:at], (TournamentCancelled(reason="rain"), line)]

    rechain(forged, cancel)
    for line in forged.tournament:
        if line["kind"] == "game" and line["round"] == 2:
            line.update(final_hash=None, archive=None, archive_object=None, archive_last_hash=None)
            forged.games.pop(line["game_id"], None)
        elif line["kind"] == "end":
            line["status"] = "cancelled"
    return forged, tournament_moved(honest, forged)


def _entrants(change: Callable[[list[Any]], None]) -> Callable[[TournamentCreated], TournamentCreated]:
    def edit(created: TournamentCreated) -> TournamentCreated:
        entrants = list(created.entrants)
        change(entrants)
        return msgspec.structs.replace(created, entrants=tuple(entrants))

    return edit


def _swap(entrants: list[Any]) -> None:
    entrants[0], entrants[1] = entrants[1], entrants[0]


def _relabel(entrants: list[Any]) -> None:
    at = next(i for i, e in enumerate(entrants) if e.bot == "random")
    entrants[at] = msgspec.structs.replace(entrants[at], bot="greedy")


def _rename(entrants: list[Any]) -> None:
    entrants[0] = msgspec.structs.replace(entrants[0], name="Mallory")


FORGERIES: list[tuple[str, Forgery]] = [
    ("tables_swapped", tables_swapped),
    ("game_relabelled", game_relabelled),
    ("table_redealt", table_redealt),
    ("winner_withdrawn", winner_withdrawn),
    (
        "tie_breaks_changed",
        _created(
            lambda c: msgspec.structs.replace(
                c, settings=msgspec.structs.replace(c.settings, tie_breaks=c.settings.tie_breaks[::-1])
            )
        ),
    ),
    ("winner_renamed", _created(_entrants(_rename))),
    ("entrants_swapped", _created(_entrants(_swap))),
    ("random_bot_relabelled_greedy", _created(_entrants(_relabel))),
    ("bot_commands_as_player", bot_commands_as_player),
    ("played_table_adjudicated", played_table_adjudicated),
    ("winner_move_timeout", winner_move_timeout),
    ("timestamps_year_back", timestamps_year_back),
    ("game_header_time", game_header_time),
    ("seed_commitment_replaced", seed_commitment_replaced),
    ("rules_version_2_to_1", _created(lambda c: msgspec.structs.replace(c, rules=1))),
    ("rating_seeds_rescaled", rating_seeds_rescaled),
    ("round_cancelled", round_cancelled),
]
IDS = [name for name, _ in FORGERIES]
