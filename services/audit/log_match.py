"""Each chain of an export against the leaves the log holds for it (``anchor`` step 3).

The log's ``Start`` leaf binds a chain's header (its genesis hash) and seed commitment; each ``Head`` leaf a
``(seq, hash)`` of it, and through the hash chain every event before; a ``finished`` head its end; a
``Commands`` leaf the digest of a finished game's command lines, which sit beside the hash chain (who sent
each command, from which seat, its origin and result). Every difference is named: which chain, which
event, which field.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

import msgspec

from events.chain import genesis
from events.tlog.leaves import Commands, Head, Leaf, Rating, Sealed, Start, commands_digest, decode
from events.tlog.seal import seal_matches
from services.audit.chains import ExportChain, Listed, safe, short

Key = tuple[str, str]


class LogIndex:
    """The log's leaves by chain, each with its index."""

    def __init__(self, leaves: Sequence[bytes]) -> None:
        self.size = len(leaves)
        self.starts: dict[Key, list[tuple[int, Start]]] = defaultdict(list)
        self.heads: dict[Key, list[tuple[int, Head | Sealed]]] = defaultdict(list)
        """``Head`` leaves, and ``Sealed`` ones (a live game's heads, by seal: ``events/tlog/seal.py``)."""
        self.commands: dict[Key, list[tuple[int, Commands]]] = defaultdict(list)
        self.unreadable: list[int] = []
        self.leaves: list[Leaf | None] = []
        for index, data in enumerate(leaves):
            try:
                leaf: Leaf | None = decode(data)
            except (msgspec.DecodeError, msgspec.ValidationError):
                leaf = None
                self.unreadable.append(index)
            self.leaves.append(leaf)
            if isinstance(leaf, Start):
                self.starts[(leaf.stream, leaf.id)].append((index, leaf))
            elif isinstance(leaf, (Head, Sealed)):
                self.heads[(leaf.stream, leaf.id)].append((index, leaf))
            elif isinstance(leaf, Commands):
                self.commands[(leaf.stream, leaf.id)].append((index, leaf))


def describe(leaf: Leaf | None) -> str:
    """A leaf in words, for a message."""
    if isinstance(leaf, Start):
        return f"{leaf.stream} {safe(leaf.id)} started with seed commitment {short(leaf.seed_commitment)}"
    if isinstance(leaf, Head):
        ended = ", its end" if leaf.finished else ""
        return f"{leaf.stream} {safe(leaf.id)} event {leaf.seq} has hash {short(leaf.hash)}{ended}"
    if isinstance(leaf, Sealed):
        return f"{leaf.stream} {safe(leaf.id)} event {leaf.seq} has seal {short(leaf.seal)}"
    if isinstance(leaf, Commands):
        return f"{leaf.stream} {safe(leaf.id)}'s {leaf.count} command records digest to {short(leaf.digest)}"
    if isinstance(leaf, Rating):
        return f"account {safe(leaf.account)}'s rating after game {safe(leaf.game_id)}"
    return "an unreadable leaf" if leaf is None else f"a {type(leaf).__name__} leaf"


def match_chains(
    chains: Sequence[ExportChain], index: LogIndex, anchored: int
) -> tuple[list[str], list[str]]:
    """``(problems, unproven)``: each chain against its leaves; ``anchored`` leaves are bound by an anchor."""
    problems: list[str] = []
    unproven: list[str] = []
    for at in index.unreadable:
        problems.append(f"leaf {at} of the log is not a leaf this log writes")
    for chain in chains:
        _match(chain, index, anchored, problems, unproven)
    problems += shared_commitments(chains, index)
    return problems, unproven


def _match(
    chain: ExportChain, index: LogIndex, anchored: int, problems: list[str], unproven: list[str]
) -> None:
    key = (chain.stream, chain.header.game_id)
    starts = index.starts.get(key, [])
    if not starts:
        problems.append(f"{chain.name} is not in the log: no leaf starts it (the log never knew this chain)")
        return
    if len(starts) > 1:
        problems.append(
            f"{chain.name} is started twice in the log (leaves {starts[0][0]} and {starts[1][0]})"
        )
    at, start = starts[0]
    if start.seed_commitment != chain.header.seed_commitment:
        problems.append(
            f"{chain.name}: the seed commitment in its header ({short(chain.header.seed_commitment)}) is not the "
            f"one the log committed to at its start ({short(start.seed_commitment)}, leaf {at}): it was dealt "
            "again with another seed, or its header was replaced"
        )
    elif start.genesis != genesis(chain.header):
        problems.append(
            f"{chain.name}: its header (game, seats, options or creation time) is not the one the log started "
            f"it with (leaf {at}, genesis {short(start.genesis)}): the header was changed"
        )
    if at >= anchored:
        unproven.append(
            f"{chain.name}: its start (leaf {at}) is past what your anchors cover ({anchored} leaves)"
        )
    _match_heads(chain, index.heads.get(key, []), anchored, problems, unproven)
    _match_commands(chain, index.commands.get(key, []), problems, unproven)


def _match_heads(
    chain: ExportChain,
    heads: list[tuple[int, Head | Sealed]],
    anchored: int,
    problems: list[str],
    unproven: list[str],
) -> None:
    by_seq = {e.seq: e for e in chain.envelopes}
    last = chain.envelopes[-1].seq if chain.envelopes else 0
    seed = chain.envelopes[-1].seed if chain.finished else None
    matched = 0  # the last event a head proves
    unsealed = 0  # sealed heads of a live game: checked once its end reveals the seed
    for at, head in heads:
        event = by_seq.get(head.seq)
        logged = f"sealed {short(head.seal)}" if isinstance(head, Sealed) else f"hash {short(head.hash)}"
        ended = isinstance(head, Head) and head.finished
        if event is None and not chain.finished and head.seq > last and not ended:  # exported live, played on
            unproven.append(
                f"{chain.name}: the log goes on to event {head.seq} (leaf {at}); the export, of the game while it "
                f"was live, ends at event {last}: export it again to prove the rest"
            )
            break
        if event is None:
            problems.append(
                f"{chain.name}: the log holds its event {head.seq} ({logged}, leaf {at}), but the export ends at "
                f"event {last}: events were removed"
            )
            return
        if isinstance(head, Sealed) and seed is None:
            unsealed += 1
            continue
        if not _same(chain, head, event.hash, seed):
            problems.append(
                f"{chain.name}: event {head.seq} differs from the head the log holds (leaf {at}: {logged}, the "
                f"export's hash {short(event.hash)}): the history was rewritten after event {matched}, at or "
                f"before event {head.seq}"
            )
            return
        if isinstance(head, Head) and head.finished and not (head.seq == last and chain.finished):
            problems.append(
                f"{chain.name}: the log says it ended at event {head.seq} (leaf {at}), the export "
                + (f"goes on to event {last}" if last > head.seq else "does not end it there")
            )
            return
        if at < anchored:
            matched = max(matched, head.seq)
    if unsealed:
        unproven.append(
            f"{chain.name}: {unsealed} heads the log sealed are checked once its end reveals the seed"
        )
    if chain.finished and not any(isinstance(head, Head) and head.finished for _, head in heads):
        unproven.append(f"{chain.name}: its end (event {last}) is not in the log")
    elif matched < last:
        unproven.append(
            f"{chain.name}: events after {matched} (to {last}) are not covered by an anchored head"
        )


def _same(chain: ExportChain, head: Head | Sealed, chain_hash: str, seed: bytes | None) -> bool:
    """The export's hash at the head's event is the logged one (a seal: keyed with the revealed seed)."""
    if isinstance(head, Head):
        return head.hash == chain_hash
    return seed is not None and seal_matches(seed, chain.header.game_id, head.seq, chain_hash, head.seal)


def _match_commands(
    chain: ExportChain, logged: list[tuple[int, Commands]], problems: list[str], unproven: list[str]
) -> None:
    if chain.command_lines is None or chain.stream != "game":
        return
    if not logged:
        if chain.finished:
            unproven.append(
                f"{chain.name}: no digest of its command records in the log (origins, seats unproven)"
            )
        return
    at, leaf = logged[-1]
    lines = chain.command_lines
    digest = commands_digest(lines)
    if (leaf.digest, leaf.count) != (digest, len(lines)):
        problems.append(
            f"{chain.name}: its {len(lines)} command records are not the {leaf.count} the log holds a digest of "
            f"(leaf {at}: {short(leaf.digest)}, the export's {short(digest)}): who sent a command, its seat, "
            "its origin, its id or its result was changed"
        )


def shared_commitments(chains: Sequence[ExportChain], index: LogIndex) -> list[str]:
    """Two chains never share a seed commitment: one would be the other relabelled."""
    problems: list[str] = []
    claimed: dict[str, str] = {}
    for chain in chains:
        other = claimed.setdefault(chain.header.seed_commitment, chain.name)
        if other != chain.name:
            problems.append(
                f"{other} and {chain.name} share the seed commitment {short(chain.header.seed_commitment)}: one "
                "is the other relabelled"
            )
    logged: dict[str, tuple[int, Start]] = {}
    for starts in index.starts.values():
        for at, start in starts:
            first = logged.setdefault(start.seed_commitment, (at, start))
            if first[0] != at and first[1].id != start.id:
                problems.append(
                    f"the log starts {first[1].stream} {safe(first[1].id)} (leaf {first[0]}) and {start.stream} "
                    f"{safe(start.id)} (leaf {at}) with the same seed commitment {short(start.seed_commitment)}"
                )
    return problems


def match_listed(listed: Sequence[Listed], index: LogIndex) -> list[str]:
    """A tournament's game lines: each game is in the log, and its result's final hash is its logged end."""
    problems: list[str] = []
    for line in listed:
        key = ("game", line.game_id)
        if not index.starts.get(key):
            problems.append(f"{line.where}: game {safe(line.game_id)} is not in the log (no leaf starts it)")
            continue
        ends = [
            (at, head) for at, head in index.heads.get(key, []) if isinstance(head, Head) and head.finished
        ]
        if line.final_hash is not None and ends and ends[-1][1].hash != line.final_hash:
            at, head = ends[-1]
            problems.append(
                f"{line.where}: the result names the final hash {short(line.final_hash)}, but the log says game "
                f"{safe(line.game_id)} ended at event {head.seq} with hash {short(head.hash)} (leaf {at})"
            )
    return problems
