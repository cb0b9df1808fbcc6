"""A transparency log built from an export's chains, as the sequencer would have built it while they were
played: every ``interval_ms`` of the events' own times, what the sequencer's own ``plan`` makes of where each
chain stands (each new chain's ``Start``; a ``Head`` for each chain that moved, a ``Sealed`` one while a game
is live, its plain finished head at its end), and a finished game's ``Commands`` once it ends (its archive
queues it). A forger who holds the signing key does exactly this with forged chains, and signs the result."""

from __future__ import annotations

import base64
import json
from collections.abc import Sequence
from typing import Any

from events.chain import genesis
from events.log_store import ChainHead, chain_field
from events.tlog import merkle
from events.tlog.checkpoint import Checkpoint
from events.tlog.leaves import Commands, Head, Leaf, Sealed, Start, commands_digest, decode, encode
from events.tlog.note import Signer, sign
from events.tlog.seal import seal
from services.audit.chains import ExportChain
from workers.log_sequencer import Observed, plan

ORIGIN = "harbormaster.test/log"


def log_leaves(chains: Sequence[ExportChain], interval_ms: int = 1000) -> list[bytes]:
    """The leaves' data, in the order a sequencer ticking every ``interval_ms`` appends them."""
    times = [c.header.created_ms for c in chains] + [e.ts_ms for c in chains for e in c.envelopes]
    first = min(times)
    by_id = {c.header.game_id: c for c in chains}
    logged: dict[str, ChainHead] = {}
    opened: set[str] = set()
    made: list[Leaf] = []
    # Only the ticks at which something has happened since the one before (a forged year-long gap is no loop).
    for tick in sorted({first + -(-(t - first) // interval_ms) * interval_ms for t in times}):
        order = sorted(chains, key=lambda c: (c.header.created_ms, c.header.game_id))
        observed = [_observed(c, tick, logged, opened) for c in order if c.header.created_ms <= tick]
        for leaf in plan(observed, logged, opened):
            made += [leaf, *_effect(leaf, logged, opened, by_id)]
    return [encode(leaf) for leaf in made]


def _observed(chain: ExportChain, tick: int, logged: dict[str, ChainHead], opened: set[str]) -> Observed:
    """Where ``chain`` stands at ``tick``, as the sequencer reads it from Redis."""
    seen = [e for e in chain.envelopes if e.ts_ms <= tick]
    finished = chain.finished and len(seen) == len(chain.envelopes)
    seq, chain_hash = (seen[-1].seq, seen[-1].hash) if seen else (0, "")
    field = chain_field(chain.stream, chain.header.game_id)
    start = None
    if field not in logged and field not in opened:
        start = Start(chain.stream, chain.header.game_id, genesis(chain.header), chain.header.seed_commitment)
    seed = chain.envelopes[-1].seed if chain.finished and chain.stream == "game" else None
    sealed = seed is not None and not finished and seq > 0
    if seed is not None and sealed:  # its hash would give away what is hidden from its viewers
        chain_hash = seal(seed, chain.header.game_id, seq, chain_hash)
    return Observed(chain.stream, chain.header.game_id, seq, chain_hash, finished, start, sealed)


def _effect(
    leaf: Leaf, logged: dict[str, ChainHead], opened: set[str], chains: dict[str, ExportChain]
) -> list[Leaf]:
    """What appending ``leaf`` records (``log_store._effects``), and the ``Commands`` leaf a finished game's
    archive queues, logged after its end."""
    if isinstance(leaf, Start):
        opened.add(chain_field(leaf.stream, leaf.id))
    elif isinstance(leaf, Sealed):
        logged[chain_field(leaf.stream, leaf.id)] = ChainHead(leaf.seq, leaf.seal)
    elif isinstance(leaf, Head):
        field = chain_field(leaf.stream, leaf.id)
        logged[field] = ChainHead(leaf.seq, leaf.hash)
        lines = chains[leaf.id].command_lines if leaf.stream == "game" else None
        if leaf.finished:
            opened.discard(field)
            if lines is not None:
                return [Commands(leaf.stream, leaf.id, leaf.seq, len(lines), commands_digest(lines))]
    return []


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
