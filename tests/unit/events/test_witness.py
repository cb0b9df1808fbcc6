"""The witness's verdicts, pure: consistent growth is cosigned, and every way a log can lie (a fork, a
rollback, a bad proof, another key, another origin) is refused, with evidence an outsider re-proves; and two
players' receipts of one game that disagree are caught by comparing them."""

from __future__ import annotations

import msgspec
import pytest

from events.tlog import leaves, merkle, note
from events.tlog.checkpoint import Checkpoint, open_checkpoint
from events.tlog.receipts import Receipt, ReceiptError, conflicting_heads
from events.tlog.witness import (
    Cosign,
    Forked,
    Refused,
    Stale,
    Unchanged,
    Verdict,
    WitnessState,
    check_evidence,
    cosigned_by,
    evidence_text,
    judge,
    needed_proof,
    pin,
    read_evidence,
)

ORIGIN = "harbormaster.test/log"
NOW = 1_800_000_000


class Log:
    """A log as an operator runs it: a tree and a key; ``fork`` rewrites a leaf and keeps the key."""

    def __init__(self, signer: note.Signer | None = None) -> None:
        self.signer = signer or note.Signer.generate(ORIGIN)
        self.tree = merkle.MemoryTree()
        self.data: list[bytes] = []

    def append(self, data: bytes) -> None:
        self.tree.append(data)
        self.data.append(data)

    def grow(self, count: int, tag: str = "") -> None:
        for _ in range(count):
            head = leaves.Head(stream="game", id="g1", seq=self.tree.size, hash=f"{tag}{self.tree.size:064x}")
            self.append(leaves.encode(head))

    def checkpoint(self, size: int | None = None) -> str:
        size = self.tree.size if size is None else size
        return note.sign(Checkpoint(ORIGIN, size, self.tree.root(size)).text, self.signer)

    def proof(self, old: int, new: int) -> list[bytes]:
        return merkle.consistency_proof(old, new, self.tree.node)

    def forked(self, at: int) -> Log:
        """The same key's log, leaves from ``at`` on rewritten."""
        other = Log(self.signer)
        for data in self.data[:at]:
            other.append(data)
        other.grow(self.tree.size - at, tag="forged")
        return other


@pytest.fixture
def witness() -> note.Signer:
    return note.Signer.generate("witness.test/w1", note.COSIGNATURE_V1)


def test_a_vkey_whose_base64_holds_a_plus_reads_back() -> None:
    # One key in ~20 has a "+" in its base64: from_vkey once split on every "+" and refused it.
    signer = next(
        s for s in (note.Signer.generate(ORIGIN) for _ in range(500)) if "+" in s.verifier.vkey[-45:]
    )
    assert note.Verifier.from_vkey(signer.verifier.vkey).public == signer.verifier.public


def follow(state: WitnessState, log: Log, witness: note.Signer, size: int | None = None) -> Verdict:
    signed = log.checkpoint(size)
    sizes = needed_proof(state, signed)
    proof = log.proof(*sizes) if sizes else []
    return judge(state, signed, proof, witness, NOW)


def test_consistent_growth_is_cosigned_and_the_line_verifies(witness: note.Signer) -> None:
    log = Log()
    state = pin(log.signer.verifier.vkey)
    for step in (1, 2, 5, 8, 13):
        log.grow(step)
        verdict = follow(state, log, witness)
        assert isinstance(verdict, Cosign)
        assert verdict.state.size == log.tree.size and verdict.state.root == log.tree.root()
        cosigned = verdict.note + verdict.line
        assert cosigned_by(cosigned, witness.verifier)
        assert open_checkpoint(cosigned, log.signer.verifier, ORIGIN).size == log.tree.size
        _, signatures = note.split(cosigned)
        assert note.cosignature_time(signatures[-1]) == NOW and len(signatures) == 2
        state = verdict.state
    assert isinstance(follow(state, log, witness), Unchanged)


def test_a_fork_at_the_same_size_is_refused_with_evidence_an_outsider_proves(witness: note.Signer) -> None:
    log = Log()
    log.grow(6)
    cosigned = follow(pin(log.signer.verifier.vkey), log, witness)
    assert isinstance(cosigned, Cosign)
    forged = log.forked(at=3)
    verdict = follow(cosigned.state, forged, witness)
    assert isinstance(verdict, Forked) and verdict.evidence.fault == "fork"
    assert verdict.state.halted.startswith("fork: two roots for the tree of 6")
    assert verdict.evidence.cosigned == cosigned.state.cosigned
    assert verdict.evidence.conflicting == forged.checkpoint()
    text = evidence_text(verdict.evidence, witness.verifier.vkey, "2027-01-01T00:00:00Z")
    assert text.count("— harbormaster.test/log ") == 2
    assert "two roots for its tree of 6" in check_evidence(read_evidence(text))
    refused = follow(verdict.state, log, witness)  # even the honest history: the witness is done with it
    assert isinstance(refused, Refused) and "for good" in refused.reason


def test_growth_that_rewrites_history_fails_its_proof_and_is_evidence(witness: note.Signer) -> None:
    log = Log()
    log.grow(5)
    first = follow(pin(log.signer.verifier.vkey), log, witness)
    assert isinstance(first, Cosign)
    forged = log.forked(at=2)
    forged.grow(4)
    verdict = follow(first.state, forged, witness)
    assert isinstance(verdict, Forked) and verdict.evidence.fault == "inconsistent"
    assert verdict.evidence.proof == forged.proof(5, 9)
    shown = check_evidence(read_evidence(evidence_text(verdict.evidence, witness.verifier.vkey, "now")))
    assert "trees of 5 and 9 are not one history" in shown


def test_a_rollback_to_another_history_is_evidence_and_an_old_checkpoint_is_not(witness: note.Signer) -> None:
    log = Log()
    log.grow(8)
    state = pin(log.signer.verifier.vkey)
    cosigned = follow(state, log, witness)
    assert isinstance(cosigned, Cosign)
    older = judge(cosigned.state, log.checkpoint(5), log.proof(5, 8), witness, NOW)
    assert older == Stale(5)  # a cache's old answer: a prefix, proven
    unproven = judge(cosigned.state, log.checkpoint(5), None, witness, NOW)
    assert isinstance(unproven, Forked) and unproven.evidence.fault == "rollback"
    assert "went back from 8 to 5" in check_evidence(unproven.evidence)
    forged = log.forked(at=2)
    rewritten = judge(cosigned.state, forged.checkpoint(5), log.proof(5, 8), witness, NOW)
    assert isinstance(rewritten, Forked) and rewritten.evidence.fault == "rollback"
    assert "not one history" in check_evidence(rewritten.evidence)


def test_a_bad_signature_another_key_or_another_origin_is_refused_without_alarm(witness: note.Signer) -> None:
    log = Log()
    log.grow(3)
    state = pin(log.signer.verifier.vkey)
    tampered = log.checkpoint().replace("\n3\n", "\n4\n")
    impostor = Log(note.Signer.generate(ORIGIN))
    impostor.grow(3)
    elsewhere = note.Signer.generate("elsewhere.test/log")
    wrong_origin = note.sign(Checkpoint("elsewhere.test/log", 3, log.tree.root()).text, elsewhere)
    for signed, why in (
        (tampered, "does not verify"),
        (impostor.checkpoint(), "no signature of a trusted key"),
        (wrong_origin, "no signature of a trusted key"),
        ("not a note", "not a checkpoint"),
    ):
        verdict = judge(state, signed, [], witness, NOW)
        assert isinstance(verdict, Refused) and why in verdict.reason
    # The log's own key over another origin line: signed, but not this log's checkpoint.
    other_origin = note.sign(Checkpoint("elsewhere.test/log", 3, log.tree.root()).text, log.signer)
    verdict = judge(state, other_origin, [], witness, NOW)
    assert isinstance(verdict, Refused) and "not 'harbormaster.test/log'" in verdict.reason


def test_growth_without_a_proof_is_not_cosigned_but_is_no_alarm(witness: note.Signer) -> None:
    log = Log()
    log.grow(4)
    first = follow(pin(log.signer.verifier.vkey), log, witness)
    assert isinstance(first, Cosign)
    log.grow(3)
    assert needed_proof(first.state, log.checkpoint()) == (4, 7)
    verdict = judge(first.state, log.checkpoint(), None, witness, NOW)
    assert isinstance(verdict, Refused) and "no consistency proof from 4 to 7" in verdict.reason


def test_the_posted_note_holds_only_the_logs_signature_and_this_witness_line(witness: note.Signer) -> None:
    log = Log()
    log.grow(2)
    other = note.Signer.generate("witness.test/w2", note.COSIGNATURE_V1)
    served = log.checkpoint() + other.cosignature_line(Checkpoint(ORIGIN, 2, log.tree.root()).text, NOW)
    verdict = judge(pin(log.signer.verifier.vkey), served, [], witness, NOW)
    assert isinstance(verdict, Cosign)
    assert verdict.note == log.checkpoint() and verdict.state.cosigned == served
    with pytest.raises(note.NoteError, match="after 1970"):
        judge(pin(log.signer.verifier.vkey), served, [], witness, 0)


def test_evidence_that_shows_nothing_is_rejected(witness: note.Signer) -> None:
    log = Log()
    log.grow(6)
    first = follow(pin(log.signer.verifier.vkey), log, witness)
    assert isinstance(first, Cosign)
    log.grow(2)
    honest = judge(first.state, log.checkpoint(), log.proof(3, 8), witness, NOW)  # a wrong proof, honest log
    assert isinstance(honest, Forked)
    corrected = msgspec.structs.replace(honest.evidence, proof=log.proof(6, 8))
    with pytest.raises(note.NoteError, match="the proof verifies"):
        check_evidence(corrected)
    with pytest.raises(note.NoteError, match="not a witness's evidence"):
        read_evidence("hello\n")


# --- receipts -------------------------------------------------------------------------------------------------


def receipt(log: Log, index: int, size: int | None = None) -> Receipt:
    size = log.tree.size if size is None else size
    return Receipt(
        checkpoint=log.checkpoint(size),
        index=index,
        leaf=log.data[index],
        proof=merkle.inclusion_proof(index, size, log.tree.node),
    )


def test_two_players_receipts_with_different_heads_at_one_size_conflict() -> None:
    log = Log()
    log.grow(7)
    forked = log.forked(at=4)  # the server showed player B another move 4 onwards
    alice, bob = receipt(log, 5), receipt(forked, 5)
    verifier = log.signer.verifier
    why = conflicting_heads(alice, bob, verifier)
    assert why is not None and "two different trees of size 7" in why
    # At two sizes, the same event with two hashes is caught too.
    forked.grow(2)
    why = conflicting_heads(alice, receipt(forked, 5), verifier)
    assert why is not None and "two hashes for event 5 of game g1" in why
    # Honest receipts agree, at one size or two.
    assert conflicting_heads(alice, receipt(log, 6), verifier) is None
    log.grow(3)
    assert conflicting_heads(alice, receipt(log, 5), verifier) is None


def test_a_receipt_that_proves_nothing_is_refused() -> None:
    log = Log()
    log.grow(4)
    good = receipt(log, 2)
    bent = Receipt(checkpoint=good.checkpoint, index=3, leaf=good.leaf, proof=good.proof)
    with pytest.raises(ReceiptError, match="proves nothing"):
        conflicting_heads(good, bent, log.signer.verifier)
    with pytest.raises(ReceiptError, match="proves nothing"):
        conflicting_heads(good, good, note.Signer.generate(ORIGIN).verifier)


def test_two_witnesses_shown_two_histories_each_cosign_but_their_heads_together_prove_the_fork() -> None:
    # The server shows witness A one history and witness B another, under one key: each alone sees a
    # consistent log, so each cosigns. Handed the other's cosigned head (gossip), either one catches it.
    honest = Log()
    honest.grow(5)
    split = honest.forked(at=2)
    alice = note.Signer.generate("witness.test/a", note.COSIGNATURE_V1)
    bob = note.Signer.generate("witness.test/b", note.COSIGNATURE_V1)
    seen_by_alice = follow(pin(honest.signer.verifier.vkey), honest, alice)
    seen_by_bob = follow(pin(honest.signer.verifier.vkey), split, bob)
    assert isinstance(seen_by_alice, Cosign) and isinstance(seen_by_bob, Cosign)
    bobs_head = seen_by_bob.note + seen_by_bob.line
    caught = judge(seen_by_alice.state, bobs_head, [], alice, NOW)
    assert isinstance(caught, Forked) and caught.evidence.fault == "fork"
    assert "two roots for its tree of 5" in check_evidence(caught.evidence)
    assert cosigned_by(caught.evidence.conflicting, bob.verifier)  # and bob vouched for the other history
