"""A transparency log built from an export's chains, as the sequencer would have built it while they were
played: every ``interval_ms`` of the events' own times, each new chain's ``Start`` and a ``Head`` for each
chain that moved (``leaves_for_chain``, the sequencer's rule), and a finished game's ``Commands`` once it
ends. A forger who holds the signing key does exactly this with forged chains, and signs the result."""

from __future__ import annotations

import base64
import json
from collections.abc import Sequence
from typing import Any

from events.tlog import merkle
from events.tlog.checkpoint import Checkpoint
from events.tlog.leaves import Commands, Head, Leaf, Sealed, commands_digest, decode, encode, leaves_for_chain
from events.tlog.note import Signer, sign
from events.tlog.seal import seal
from services.audit.chains import ExportChain

ORIGIN = "harbormaster.test/log"


def log_leaves(chains: Sequence[ExportChain], interval_ms: int = 1000) -> list[bytes]:
    """The leaves' data, in the order a sequencer ticking every ``interval_ms`` appends them."""
    times = [c.header.created_ms for c in chains] + [e.ts_ms for c in chains for e in c.envelopes]
    first = min(times)
    logged: dict[tuple[str, str], tuple[int, str]] = {}
    made: list[Leaf] = []
    # Only the ticks at which something has happened since the one before (a forged year-long gap is no loop).
    for tick in sorted({first + -(-(t - first) // interval_ms) * interval_ms for t in times}):
        for chain in sorted(chains, key=lambda c: (c.header.created_ms, c.header.game_id)):
            if chain.header.created_ms > tick:
                continue
            key = (chain.stream, chain.header.game_id)
            seen = [e for e in chain.envelopes if e.ts_ms <= tick]
            whole = len(seen) == len(chain.envelopes)
            fresh = _sealed(
                chain, leaves_for_chain(chain.header, seen, chain.finished and whole, logged.get(key))
            )
            made += fresh
            logged[key] = (seen[-1].seq, seen[-1].hash) if seen else (0, "")  # started, no head yet
            if (
                any(isinstance(leaf, Head) and leaf.finished for leaf in fresh)
                and chain.command_lines is not None
            ):
                lines = chain.command_lines  # archived once it ends: the digest of its command records
                made.append(Commands(chain.stream, chain.header.game_id, seen[-1].seq, len(lines),
                                     commands_digest(lines)))  # fmt: skip
    return [encode(leaf) for leaf in made]


def _sealed(chain: ExportChain, made: list[Leaf]) -> list[Leaf]:
    """A live game's heads as the sequencer logs them: by their seal, keyed with the game's seed."""
    seed = chain.envelopes[-1].seed if chain.finished and chain.stream == "game" else None
    if seed is None:
        return made
    return [Sealed(leaf.stream, leaf.id, leaf.seq, seal(seed, leaf.id, leaf.seq, leaf.hash))
            if isinstance(leaf, Head) and not leaf.finished else leaf for leaf in made]  # fmt: skip


def tree(leaves: Sequence[bytes]) -> merkle.MemoryTree:
    built = merkle.MemoryTree()
    for data in leaves:
        built.append(data)
    return built


def checkpoint(leaves: Sequence[bytes], signer: Signer, size: int | None = None) -> str:
    """The log's signed checkpoint over its first ``size`` leaves (all by default)."""
    size = len(leaves) if size is None else size
    return sign(Checkpoint(ORIGIN, size, tree(leaves).root(size)).text, signer)


def log_file(leaves: Sequence[bytes], signer: Signer, retired: Sequence[str] = ()) -> bytes:
    """``log.jsonl``: the keys, every leaf, the signed checkpoint."""
    lines: list[dict[str, Any]] = [
        {"log": {"origin": ORIGIN, "vkey": signer.verifier.vkey, "retired": list(retired)}}
    ]
    lines += [{"index": i, "leaf": base64.b64encode(data).decode()} for i, data in enumerate(leaves)]
    lines.append({"checkpoint": checkpoint(leaves, signer)})
    return b"".join(json.dumps(line).encode() + b"\n" for line in lines)


def receipts_file(leaves: Sequence[bytes], signer: Signer, chain: ExportChain) -> bytes:
    """What a player of ``chain`` kept: every event's ``(seq, hash)`` they were shown, and a receipt for
    each of the game's heads in the checkpoint over ``leaves``."""
    built = tree(leaves)
    signed = checkpoint(leaves, signer)
    receipts = []
    for index, data in enumerate(leaves):
        leaf = decode(data)
        if isinstance(leaf, (Head, Sealed)) and (leaf.stream, leaf.id) == (
            chain.stream,
            chain.header.game_id,
        ):
            proof = merkle.inclusion_proof(index, len(leaves), built.node)
            receipts.append({"stream": leaf.stream, "id": leaf.id, "seed_commitment": chain.header.seed_commitment,
                             "leaf": base64.b64encode(data).decode(), "index": index, "checkpoint": signed,
                             "size": len(leaves), "proof": [base64.b64encode(p).decode() for p in proof]})  # fmt: skip
    game = {"seed_commitment": chain.header.seed_commitment,
            "seen": [[e.seq, e.hash] for e in chain.envelopes], "receipts": receipts}  # fmt: skip
    body = {"format": "harbormaster-receipts/1", "log": {"origin": ORIGIN, "vkey": signer.verifier.vkey},
            "games": {chain.header.game_id: game}}  # fmt: skip
    return json.dumps(body).encode()
