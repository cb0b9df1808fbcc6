"""A player's receipts against an export (``verify --receipts``).

Each receipt is a leaf of the log with its inclusion proof in a checkpoint the log signed: the proof must
hold, and the leaf (a game's ``Head`` or ``Start``) must say what the export says. Each ``(seq, hash)`` the
server showed the player must be the export's event at ``seq``: the first that is not names the event from
which the history was rewritten. The receipts' checkpoints are then held checkpoints like ``--checkpoint``:
the log must extend each of them (``anchor``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import msgspec

from events.chain import genesis
from events.tlog.checkpoint import Checkpoint
from events.tlog.leaves import Head, Sealed, Start, Stream, decode
from events.tlog.merkle import ProofError, leaf_hash, verify_inclusion
from events.tlog.note import NoteError, Verifier
from events.tlog.seal import seal_matches
from services.audit.chains import ExportChain, safe, short
from services.audit.log_file import GameReceipts, Receipt, ReceiptsFile, signed_checkpoint


class ReceiptsCheck(msgspec.Struct, kw_only=True):
    problems: list[str] = msgspec.field(default_factory=list)
    notes: list[str] = msgspec.field(default_factory=list)
    proven: list[str] = msgspec.field(default_factory=list)
    checkpoints: list[tuple[str, Checkpoint]] = msgspec.field(default_factory=list)
    """Each receipt checkpoint that verified, with where it comes from: the log must extend it."""
    receipts: list[Receipt] = msgspec.field(default_factory=list)
    """The receipts whose proofs hold: the log's leaf at each index must be theirs."""


def check_receipts(
    receipts: ReceiptsFile, chains: Mapping[tuple[Stream, str], ExportChain], keys: Sequence[Verifier]
) -> ReceiptsCheck:
    check = ReceiptsCheck()
    for game_id, held in sorted(receipts.games.items()):
        chain = chains.get(("game", game_id))
        if chain is None:
            check.notes.append(
                f"receipts for game {safe(game_id)}, which this export does not hold: not checked"
            )
            continue
        before = len(check.problems)
        _check_game(chain, held, check)
        for receipt in held.receipts:
            _check_receipt(chain, receipt, keys, check)
        if len(check.problems) == before:
            check.proven.append(f"{chain.name}: {len(held.receipts)} receipts verify in their signed checkpoints, "
                                f"and the export holds the {len(held.seen)} events this player was shown")  # fmt: skip
    return check


def _check_game(chain: ExportChain, held: GameReceipts, check: ReceiptsCheck) -> None:
    if held.seed_commitment and held.seed_commitment != chain.header.seed_commitment:
        check.problems.append(
            f"{chain.name}: the seed commitment the server showed this player ({short(held.seed_commitment)}) is "
            f"not the export's ({short(chain.header.seed_commitment)}): the game was dealt again"
        )
    by_seq = {e.seq: e.hash for e in chain.envelopes}
    last = max(by_seq, default=0)
    seed = _seed(chain)
    sealed = 0  # shown by their seal while the game was live, and the export's game is live still
    for seq, shown in sorted(held.seen):
        if seq not in by_seq:
            check.problems.append(
                f"event {seq} of {chain.name} was shown to this player (hash {short(shown)}), but the export ends "
                f"at event {last}: events were removed"
            )
            return
        if by_seq[seq] == shown or (
            seed and seal_matches(seed, chain.header.game_id, seq, by_seq[seq], shown)
        ):
            continue
        if seed is None:
            sealed += 1
            continue
        check.problems.append(
            f"event {seq} of {chain.name} differs from what the server showed this player (hash "
            f"{short(shown)}, the export's {short(by_seq[seq])}): the history was rewritten from event {seq}"
        )
        return
    if sealed:
        check.notes.append(f"{chain.name}: {sealed} events were shown by their seal: checked once its end "
                           "reveals the seed")  # fmt: skip


def _seed(chain: ExportChain) -> bytes | None:
    """The game's revealed seed (its seals are keyed with it), once the export ends it."""
    return chain.envelopes[-1].seed if chain.finished and chain.envelopes else None


def _check_receipt(
    chain: ExportChain, receipt: Receipt, keys: Sequence[Verifier], check: ReceiptsCheck
) -> None:
    what = f"{chain.name}: the receipt of leaf {receipt.index}"
    try:
        checkpoint = signed_checkpoint(receipt.checkpoint, list(keys))
    except NoteError as exc:
        check.problems.append(f"{what}: its checkpoint is not signed by the log's key ({exc})")
        return
    try:
        if receipt.size != checkpoint.size:
            raise ProofError(f"it says size {receipt.size}, its checkpoint {checkpoint.size}")
        verify_inclusion(
            leaf_hash(receipt.leaf), receipt.index, checkpoint.size, receipt.proof, checkpoint.root
        )
        leaf = decode(receipt.leaf)
    except (ProofError, msgspec.DecodeError, msgspec.ValidationError) as exc:
        check.problems.append(f"{what}: its proof does not hold ({exc})")
        return
    check.checkpoints.append((f"the receipt of leaf {receipt.index} of {chain.name}", checkpoint))
    check.receipts.append(receipt)
    if isinstance(leaf, Head) and (leaf.stream, leaf.id) == (chain.stream, chain.header.game_id):
        event = next((e for e in chain.envelopes if e.seq == leaf.seq), None)
        if event is None or event.hash != leaf.hash:
            said = f"the export's {short(event.hash)}" if event else "the export does not reach it"
            check.problems.append(
                f"event {leaf.seq} of {chain.name} differs from the head the log signed for this player (hash "
                f"{short(leaf.hash)}, {said}): the history was rewritten at or before event {leaf.seq}"
            )
    elif isinstance(leaf, Sealed) and (leaf.stream, leaf.id) == (chain.stream, chain.header.game_id):
        event = next((e for e in chain.envelopes if e.seq == leaf.seq), None)
        seed = _seed(chain)
        if seed is None and event is not None:
            check.notes.append(f"{what} is sealed: checked once the game's end reveals the seed")
        elif event is None or not seal_matches(
            seed or b"", chain.header.game_id, leaf.seq, event.hash, leaf.seal
        ):
            check.problems.append(
                f"event {leaf.seq} of {chain.name} differs from the head the log sealed for this player (seal "
                f"{short(leaf.seal)}): the history was rewritten at or before event {leaf.seq}"
            )
    elif isinstance(leaf, Start) and (leaf.stream, leaf.id) == (chain.stream, chain.header.game_id):
        if (leaf.genesis, leaf.seed_commitment) != (genesis(chain.header), chain.header.seed_commitment):
            check.problems.append(f"{chain.name}: its header is not the one the log started it with (leaf "
                                  f"{receipt.index}, seed commitment {short(leaf.seed_commitment)})")  # fmt: skip
    else:
        check.notes.append(f"{what} is about another chain or kind: only its proof was checked")
