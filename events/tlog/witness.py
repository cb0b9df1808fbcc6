"""A witness's verdicts, pure: given what it cosigned last and a new signed checkpoint with a consistency
proof, cosign, wait, or refuse; and when the log has signed two histories, the evidence that it did.

The witness (``services/witness``) fetches and stores; everything it concludes is concluded here, so the
same rules are tested without a network and an auditor can re-check a fork's evidence with
:func:`check_evidence`. The C2SP witness protocol (c2sp.org/tlog-witness) has the log push checkpoints to
witnesses; ours pull them and post their cosignatures back, but they check exactly what that spec has a
witness check, and cosign in the c2sp.org/tlog-cosignature shape (type 0x04, timestamped).

A witness halts for good only on conclusive evidence, two checkpoints both signed by the log that cannot
both be true: the same size with two roots, a larger size whose consistency proof from the cosigned one
fails, or a smaller size the log cannot prove to be a prefix of the cosigned one (a rollback). A smaller
checkpoint that *is* proven a prefix is an old one served again (a cache, a lagging replica): not cosigned,
no alarm, because a signed note carries no time that would show it was signed after the larger one.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Sequence
from typing import Literal

import msgspec

from events.tlog import merkle, note
from events.tlog.checkpoint import Checkpoint, open_checkpoint, parse


class WitnessState(msgspec.Struct, frozen=True, kw_only=True):
    """What a witness keeps about one log, durably: the pinned key, and the last checkpoint it cosigned."""

    log_vkey: str
    retired: tuple[str, ...] = ()
    """The log's earlier keys, oldest first: they signed what was cosigned before a rotation."""
    size: int = 0
    root: bytes = merkle.EMPTY_ROOT
    cosigned: str = ""
    """The last checkpoint note it cosigned, as the log served it ("" before the first)."""
    halted: str = ""
    """Why it refuses this log for good (a fork or a rollback); "" while it still witnesses."""
    evidence: str = ""
    """Where the evidence of that fork was written."""

    @property
    def log(self) -> note.Verifier:
        return note.Verifier.from_vkey(self.log_vkey)

    @property
    def origin(self) -> str:
        """The log's origin line: its key's name (the log signs under its origin)."""
        return self.log.name

    @property
    def checkpoint(self) -> Checkpoint:
        return Checkpoint(self.origin, self.size, self.root)


def pin(log_vkey: str) -> WitnessState:
    """The state of a witness that has not cosigned anything of the log with key ``log_vkey`` yet."""
    verifier = note.Verifier.from_vkey(log_vkey)
    if verifier.kind != note.ED25519:
        raise note.NoteError("a log's key signs with Ed25519 (type 0x01), not as a cosigner")
    return WitnessState(log_vkey=verifier.vkey)


def rotate(state: WitnessState, log_vkey: str) -> WitnessState:
    """The state once the log's operator rotated its key to ``log_vkey`` (checked out of band by the
    witness's owner): the same origin, the same cosigned tree, which the new key's checkpoints must extend."""
    new = pin(log_vkey).log
    if new.name != state.origin:
        raise note.NoteError(f"the key {new.vkey} is not of the log {state.origin}")
    if new.vkey == state.log_vkey:
        return state
    return msgspec.structs.replace(state, log_vkey=new.vkey, retired=(*state.retired, state.log_vkey))


# --- what the witness concludes -----------------------------------------------------------------------------

Fault = Literal["fork", "inconsistent", "rollback"]


class Evidence(msgspec.Struct, frozen=True, kw_only=True):
    """Two checkpoints signed by one log that cannot both be true, and the proof the log offered (if any)."""

    fault: Fault
    reason: str
    log_vkey: str
    retired: tuple[str, ...] = ()
    cosigned: str
    """The note this witness cosigned before."""
    conflicting: str
    """The note the log signed that does not extend it."""
    proof: list[bytes] | None
    """The consistency proof the log gave between the two sizes (``None``: it gave none)."""


class Cosign(msgspec.Struct, frozen=True):
    """Cosign: ``state`` is to be stored durably before ``note`` (the log's note and ``line``) is sent."""

    state: WitnessState
    line: str
    note: str


class Unchanged(msgspec.Struct, frozen=True):
    """The checkpoint already cosigned (same size and root)."""


class Stale(msgspec.Struct, frozen=True):
    """An older checkpoint, proven a prefix of the cosigned one: nothing to cosign, nothing wrong."""

    size: int


class Refused(msgspec.Struct, frozen=True):
    """Not cosigned, and not proof of anything against the log (unsigned, another log's, no proof yet)."""

    reason: str


class Forked(msgspec.Struct, frozen=True):
    """The log signed two histories: ``state`` (halted) is to be stored, ``evidence`` kept and shown."""

    state: WitnessState
    evidence: Evidence


Verdict = Cosign | Unchanged | Stale | Refused | Forked


def needed_proof(state: WitnessState, signed: str) -> tuple[int, int] | None:
    """The ``(old, new)`` sizes of the consistency proof :func:`judge` needs for ``signed``, if any.

    Read unverified, only to know what to fetch: :func:`judge` verifies everything itself.
    """
    try:
        size = parse(note.split(signed)[0]).size
    except note.NoteError:
        return None
    if size == state.size or min(size, state.size) == 0:
        return None
    return (min(size, state.size), max(size, state.size))


def judge(
    state: WitnessState,
    signed: str,
    proof: Sequence[bytes] | None,
    signer: note.Signer,
    timestamp: int,
) -> Verdict:
    """What to do with the log's signed checkpoint ``signed``, given the consistency proof between its size
    and the cosigned one (``None``: the log answered that it has none). ``timestamp`` (POSIX seconds, not 0)
    goes into the cosignature."""
    if state.halted:
        return Refused(f"this witness refuses {state.origin} for good: {state.halted}")
    try:
        new = open_checkpoint(signed, state.log, state.origin)
    except note.NoteError as error:
        return Refused(f"not a checkpoint of {state.origin} signed by its pinned key: {error}")
    if new.size == 0 and new.root != merkle.EMPTY_ROOT:
        return Refused("a checkpoint of size 0 must have the empty tree's root")
    if new.size == state.size:
        if new.root == state.root:
            return Unchanged()
        return _forked(state, signed, proof, "fork", f"two roots for the tree of {new.size}")
    if new.size < state.size:
        return _older(state, new, signed, proof)
    return _grown(state, new, signed, proof, signer, timestamp)


def _older(state: WitnessState, new: Checkpoint, signed: str, proof: Sequence[bytes] | None) -> Verdict:
    if proof is None:
        reason = f"the log went back from {state.size} to {new.size} and cannot prove it a prefix"
        return _forked(state, signed, proof, "rollback", reason)
    try:
        merkle.verify_consistency(new.size, state.size, new.root, state.root, proof)
    except merkle.ProofError as error:
        reason = f"the log went back from {state.size} to {new.size}, to another history: {error}"
        return _forked(state, signed, proof, "rollback", reason)
    return Stale(new.size)


def _grown(
    state: WitnessState,
    new: Checkpoint,
    signed: str,
    proof: Sequence[bytes] | None,
    signer: note.Signer,
    timestamp: int,
) -> Verdict:
    if proof is None and state.size > 0:
        return Refused(f"the log gave no consistency proof from {state.size} to {new.size}")
    try:
        merkle.verify_consistency(state.size, new.size, state.root, new.root, proof or [])
    except merkle.ProofError as error:
        reason = f"the tree of {new.size} does not extend the cosigned tree of {state.size}: {error}"
        return _forked(state, signed, proof, "inconsistent", reason)
    grown = msgspec.structs.replace(state, size=new.size, root=new.root, cosigned=signed)
    return Cosign(grown, cosign(new, signer, timestamp), log_signed(signed, state.log))


def _forked(
    state: WitnessState, signed: str, proof: Sequence[bytes] | None, fault: Fault, reason: str
) -> Forked:
    evidence = Evidence(
        fault=fault,
        reason=reason,
        log_vkey=state.log_vkey,
        retired=state.retired,
        cosigned=state.cosigned,
        conflicting=signed,
        proof=None if proof is None else list(proof),
    )
    return Forked(msgspec.structs.replace(state, halted=f"{fault}: {reason}"), evidence)


def cosign(checkpoint: Checkpoint, signer: note.Signer, timestamp: int) -> str:
    """The witness's cosignature line (type 0x04) over ``checkpoint``."""
    if signer.verifier.kind != note.COSIGNATURE_V1:
        raise note.NoteError("a witness cosigns with a type 0x04 key")
    if timestamp <= 0:
        raise note.NoteError("a cosignature's time must be after 1970 (0 means none)")
    return signer.cosignature_line(checkpoint.text, timestamp)


def log_signed(signed: str, log: note.Verifier) -> str:
    """``signed`` with only the log's own signature lines: what a cosignature line is appended to."""
    text, signatures = note.split(signed)
    own = [s.line for s in signatures if (s.name, s.id) == (log.name, log.id)]
    return text + "\n" + "".join(line if line.endswith("\n") else line + "\n" for line in own)


def cosigned_by(signed: str, witness: note.Verifier) -> bool:
    """Whether ``signed`` carries ``witness``'s valid cosignature."""
    try:
        note.open_note(signed, [witness])
    except note.NoteError:
        return False
    return True


# --- evidence, as a file anyone can check -------------------------------------------------------------------

_SECTION = "-----"


def evidence_text(evidence: Evidence, witness_vkey: str, detected: str) -> str:
    """The evidence file: a readable header, then each part after a ``----- <part>`` line."""
    proof = (
        "none given\n"
        if evidence.proof is None
        else "".join(base64.b64encode(p).decode() + "\n" for p in evidence.proof)
    )
    header = (
        f"The log {evidence.log_vkey.split('+', 1)[0]} signed two checkpoints that cannot both be true.\n"
        f"fault: {evidence.fault}\nreason: {evidence.reason}\ndetected: {detected}\n"
        f"witness: {witness_vkey}\n"
    )
    parts = {
        "log key": "".join(vkey + "\n" for vkey in (evidence.log_vkey, *evidence.retired)),
        "cosigned checkpoint": evidence.cosigned,
        "conflicting checkpoint": evidence.conflicting,
        "consistency proof": proof,
    }
    return header + "".join(f"{_SECTION} {name}\n{body}" for name, body in parts.items())


def read_evidence(text: str) -> Evidence:
    """An evidence file's parts (its header is for people; :func:`check_evidence` proves the rest)."""
    chunks = text.split(f"\n{_SECTION} ")
    parts: dict[str, str] = {}
    for chunk in chunks[1:]:
        name, _, body = chunk.partition("\n")
        parts[name] = body
    header = dict(line.partition(": ")[::2] for line in chunks[0].splitlines())
    fault = header.get("fault", "")
    if fault not in ("fork", "inconsistent", "rollback") or len(parts) != 4:
        raise note.NoteError("not a witness's evidence file")
    log_keys = parts["log key"].split()
    raw = parts["consistency proof"]
    try:
        proof = None if raw.startswith("none") else [base64.b64decode(p, validate=True) for p in raw.split()]
    except binascii.Error:
        raise note.NoteError("the evidence's proof is not base64") from None
    return Evidence(
        fault=fault,  # type: ignore[arg-type]  # one of the three, checked above
        reason=header.get("reason", ""),
        log_vkey=log_keys[0] if log_keys else "",
        retired=tuple(log_keys[1:]),
        cosigned=_tail(parts["cosigned checkpoint"]),
        conflicting=_tail(parts["conflicting checkpoint"]),
        proof=proof,
    )


def _tail(body: str) -> str:
    return body if body.endswith("\n") else body + "\n"


def check_evidence(evidence: Evidence) -> str:
    """Re-prove evidence from scratch; returns what it shows, raises ``NoteError`` if it shows nothing."""
    log = note.Verifier.from_vkey(evidence.log_vkey)
    new = open_checkpoint(evidence.conflicting, log, log.name)
    keys = [log, *(note.Verifier.from_vkey(vkey) for vkey in evidence.retired)]
    old = parse(note.open_note(evidence.cosigned, keys)[0])  # signed before a rotation, perhaps
    if old.origin != new.origin:
        raise note.NoteError(f"the two checkpoints are of two logs: {old.origin} and {new.origin}")
    if old.size == new.size:
        if old.root == new.root:
            raise note.NoteError("the two checkpoints are the same")
        return f"{old.origin} signed two roots for its tree of {old.size}"
    small, large = (old, new) if old.size < new.size else (new, old)
    if evidence.proof is None:
        if new.size > old.size:
            raise note.NoteError("no proof: a larger checkpoint without one shows nothing")
        return f"{old.origin} went back from {old.size} to {new.size} and gave no proof it is a prefix"
    try:
        merkle.verify_consistency(small.size, large.size, small.root, large.root, evidence.proof)
    except merkle.ProofError as error:
        return f"{old.origin}'s trees of {small.size} and {large.size} are not one history ({error})"
    raise note.NoteError("the proof verifies: the two checkpoints are consistent")
