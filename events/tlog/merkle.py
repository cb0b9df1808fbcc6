"""RFC 6962 (RFC 9162 section 2.1) Merkle tree hashing, audit paths and consistency proofs.

Leaves hash as ``SHA-256(0x00 || data)``, interior nodes as ``SHA-256(0x01 || left || right)``; a tree of
``n`` leaves splits at the largest power of two below ``n``. Proofs are built from a ``NodeReader``: the hash
of the perfect subtree at ``(level, index)`` (leaves ``[index << level, (index + 1) << level)``), which is
what the log stores, so a proof costs O(log n) node reads however large the log is.

Why our own and not ``pymerkle``: the log's nodes live in Redis, written under the sequencer's lease in the
same compare-and-set as its leaves, and pymerkle keeps its tree in its own memory or SQLite backend; the
verifying half is the 60 lines RFC 9162 section 2.1.3-2.1.4 spell out, checked here against the RFC 6962
test vectors of Certificate Transparency and against ``pymerkle`` in the tests.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence

NodeReader = Callable[[int, int], bytes]
"""``(level, index) -> hash`` of a perfect subtree already in the tree."""

EMPTY_ROOT = hashlib.sha256(b"").digest()


class ProofError(ValueError):
    """A proof that does not prove what it claims, or asked for outside the tree."""


def leaf_hash(data: bytes) -> bytes:
    return hashlib.sha256(b"\x00" + data).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(b"\x01" + left + right).digest()


def _split(size: int) -> int:
    """The largest power of two strictly below ``size`` (``size`` >= 2)."""
    return 1 << ((size - 1).bit_length() - 1)


def subtree_root(start: int, end: int, node: NodeReader) -> bytes:
    """The Merkle tree hash of leaves ``[start, end)``, from the stored perfect subtrees."""
    size = end - start
    if size <= 0:
        return EMPTY_ROOT
    level = size.bit_length() - 1
    if size == 1 << level and start % size == 0:
        return node(level, start >> level)
    k = _split(size)
    return node_hash(subtree_root(start, start + k, node), subtree_root(start + k, end, node))


def inclusion_proof(index: int, size: int, node: NodeReader) -> list[bytes]:
    """The audit path of leaf ``index`` in the tree of ``size`` leaves (RFC 9162 2.1.3.1)."""
    if not 0 <= index < size:
        raise ProofError(f"leaf {index} is not in a tree of {size}")
    path: list[bytes] = []
    start, end = 0, size
    while end - start > 1:
        k = _split(end - start)
        if index < start + k:
            path.append(subtree_root(start + k, end, node))
            end = start + k
        else:
            path.append(subtree_root(start, start + k, node))
            start += k
    path.reverse()
    return path


def consistency_proof(old_size: int, new_size: int, node: NodeReader) -> list[bytes]:
    """The proof that the tree of ``old_size`` leaves is a prefix of the one of ``new_size`` (RFC 9162 2.1.4.1)."""
    if not 0 <= old_size <= new_size:
        raise ProofError(f"no consistency proof from {old_size} to {new_size}")
    if old_size in (0, new_size):
        return []
    return _subproof(old_size, 0, new_size, True, node)


def _subproof(m: int, start: int, end: int, whole: bool, node: NodeReader) -> list[bytes]:
    size = end - start
    if m == size:
        return [] if whole else [subtree_root(start, end, node)]
    k = _split(size)
    if m <= k:
        return [*_subproof(m, start, start + k, whole, node), subtree_root(start + k, end, node)]
    return [*_subproof(m - k, start + k, end, False, node), subtree_root(start, start + k, node)]


def verify_inclusion(leaf: bytes, index: int, size: int, proof: Sequence[bytes], root: bytes) -> None:
    """Raise :class:`ProofError` unless ``proof`` shows the leaf hash ``leaf`` at ``index`` under ``root``."""
    if not 0 <= index < size:
        raise ProofError(f"leaf {index} is not in a tree of {size}")
    fn, sn, r = index, size - 1, leaf
    for p in proof:
        if sn == 0:
            raise ProofError("the inclusion proof is too long")
        if fn & 1 or fn == sn:
            r = node_hash(p, r)
            while not fn & 1 and fn != 0:
                fn, sn = fn >> 1, sn >> 1
        else:
            r = node_hash(r, p)
        fn, sn = fn >> 1, sn >> 1
    if sn != 0:
        raise ProofError("the inclusion proof is too short")
    if r != root:
        raise ProofError(f"leaf {index} is not in the tree of {size} with that root")


def verify_consistency(
    old_size: int, new_size: int, old_root: bytes, new_root: bytes, proof: Sequence[bytes]
) -> None:
    """Raise :class:`ProofError` unless ``proof`` shows the old tree is a prefix of the new one."""
    if not 0 <= old_size <= new_size:
        raise ProofError(f"no consistency between sizes {old_size} and {new_size}")
    if old_size == new_size:
        if proof or old_root != new_root:
            raise ProofError(f"two different roots for the tree of {old_size}")
        return
    if old_size == 0:
        if proof:
            raise ProofError("a proof from the empty tree must be empty")
        return
    if not proof:
        raise ProofError("the consistency proof is empty")
    path = list(proof)
    if old_size & (old_size - 1) == 0:  # a power of two: the old root is the proof's implicit first node
        path.insert(0, old_root)
    fn, sn = old_size - 1, new_size - 1
    while fn & 1:
        fn, sn = fn >> 1, sn >> 1
    fr = sr = path[0]
    for c in path[1:]:
        if sn == 0:
            raise ProofError("the consistency proof is too long")
        if fn & 1 or fn == sn:
            fr, sr = node_hash(c, fr), node_hash(c, sr)
            while not fn & 1 and fn != 0:
                fn, sn = fn >> 1, sn >> 1
        else:
            sr = node_hash(sr, c)
        fn, sn = fn >> 1, sn >> 1
    if sn != 0:
        raise ProofError("the consistency proof is too short")
    if fr != old_root:
        raise ProofError(f"the tree of {old_size} is not the one with that root")
    if sr != new_root:
        raise ProofError(f"the tree of {new_size} is not the one with that root")


def nodes_completed(size: int, leaf: bytes, node: NodeReader) -> list[tuple[int, int, bytes]]:
    """The ``(level, index, hash)`` nodes that appending ``leaf`` as leaf number ``size`` completes.

    Level 0 is the leaf itself; each further level is a perfect subtree the new leaf closes (its left
    sibling is already stored). The sequencer stores all of them with the leaf, in one compare-and-set.
    """
    made = [(0, size, leaf)]
    index, current, level = size, leaf, 0
    while index & 1:
        current = node_hash(node(level, index - 1), current)
        index, level = index >> 1, level + 1
        made.append((level, index, current))
    return made


class MemoryTree:
    """A whole tree in memory: what ``verify`` rebuilds from an export's leaves, and what tests use."""

    def __init__(self) -> None:
        self.levels: list[list[bytes]] = [[]]

    @property
    def size(self) -> int:
        return len(self.levels[0])

    def node(self, level: int, index: int) -> bytes:
        try:
            return self.levels[level][index]
        except IndexError:
            raise ProofError(f"no node at level {level} index {index}") from None

    def append(self, data: bytes) -> int:
        """Append a leaf's data; returns its index."""
        index = self.size
        for level, at, value in nodes_completed(index, leaf_hash(data), self.node):
            if level == len(self.levels):
                self.levels.append([])
            assert len(self.levels[level]) == at
            self.levels[level].append(value)
        return index

    def root(self, size: int | None = None) -> bytes:
        return subtree_root(0, self.size if size is None else size, self.node)
