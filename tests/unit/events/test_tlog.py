"""The log's pure parts: RFC 6962 hashing against Certificate Transparency's test vectors, proofs that verify
and tampered proofs that do not, signed notes, checkpoints and cosignatures as C2SP writes them."""

from __future__ import annotations

import base64

import pytest
from hypothesis import given
from hypothesis import strategies as st

from events.tlog import leaves, merkle, note
from events.tlog.checkpoint import Checkpoint, open_checkpoint, parse

# RFC 6962 test leaves and roots (Certificate Transparency's merkle_tree_test, also in transparency-dev/merkle).
CT_LEAVES = [
    b"",
    b"\x00",
    b"\x10",
    b"\x20\x21",
    b"\x30\x31",
    b"\x40\x41\x42\x43",
    b"\x50\x51\x52\x53\x54\x55\x56\x57",
    b"\x60\x61\x62\x63\x64\x65\x66\x67\x68\x69\x6a\x6b\x6c\x6d\x6e\x6f",
]
CT_ROOTS = [
    "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
    "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
    "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
    "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
    "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
    "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
]


def tree_of(count: int) -> merkle.MemoryTree:
    tree = merkle.MemoryTree()
    for i in range(count):
        tree.append(i.to_bytes(4, "big"))
    return tree


def test_the_roots_are_certificate_transparencys() -> None:
    tree = merkle.MemoryTree()
    for data, expected in zip(CT_LEAVES, CT_ROOTS, strict=True):
        tree.append(data)
        assert tree.root().hex() == expected
    assert merkle.MemoryTree().root() == merkle.EMPTY_ROOT


def test_a_known_inclusion_path() -> None:
    # CT's vector: leaf 0 of 8 has the path below.
    tree = merkle.MemoryTree()
    for data in CT_LEAVES:
        tree.append(data)
    assert [p.hex() for p in merkle.inclusion_proof(0, 8, tree.node)] == [
        "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
        "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
        "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4",
    ]


@given(st.integers(min_value=1, max_value=70), st.data())
def test_every_inclusion_proof_verifies_and_a_changed_one_does_not(size: int, data: st.DataObject) -> None:
    tree = tree_of(size)
    index = data.draw(st.integers(min_value=0, max_value=size - 1))
    proof = merkle.inclusion_proof(index, size, tree.node)
    leaf = merkle.leaf_hash(index.to_bytes(4, "big"))
    merkle.verify_inclusion(leaf, index, size, proof, tree.root())
    with pytest.raises(merkle.ProofError):
        merkle.verify_inclusion(merkle.leaf_hash(b"forged"), index, size, proof, tree.root())
    if proof:
        bent = [*proof[:-1], bytes(32)]
        with pytest.raises(merkle.ProofError):
            merkle.verify_inclusion(leaf, index, size, bent, tree.root())
    with pytest.raises(merkle.ProofError):
        merkle.verify_inclusion(leaf, index, size, [*proof, bytes(32)], tree.root())


@given(st.integers(min_value=1, max_value=70), st.data())
def test_every_consistency_proof_verifies_and_a_fork_does_not(new: int, data: st.DataObject) -> None:
    tree = tree_of(new)
    old = data.draw(st.integers(min_value=1, max_value=new))
    proof = merkle.consistency_proof(old, new, tree.node)
    merkle.verify_consistency(old, new, tree.root(old), tree.root(), proof)
    forked = tree_of(old - 1)
    forked.append(b"another history")
    with pytest.raises(merkle.ProofError):
        merkle.verify_consistency(old, new, forked.root(), tree.root(), proof)
    if old < new:
        with pytest.raises(merkle.ProofError):
            merkle.verify_consistency(old, new, tree.root(old), tree.root(new - 1), proof)


def test_a_root_from_stored_nodes_is_the_root_of_its_prefix() -> None:
    tree = tree_of(37)
    for size in range(38):
        prefix = tree_of(size)
        assert merkle.subtree_root(0, size, tree.node) == prefix.root()


def test_a_signed_note_verifies_with_its_vkey_and_fails_when_changed() -> None:
    signer = note.Signer.generate("harbormaster.example/log")
    verifier = note.Verifier.from_vkey(signer.verifier.vkey)
    signed = note.sign("hello\n", signer)
    text, who = note.open_note(signed, [verifier])
    assert text == "hello\n" and who[0].vkey == signer.verifier.vkey
    with pytest.raises(note.NoteError, match="does not verify"):
        note.open_note(signed.replace("hello", "hellO"), [verifier])
    other = note.Signer.generate("harbormaster.example/log")
    with pytest.raises(note.NoteError, match="no signature of a trusted key"):
        note.open_note(signed, [other.verifier])


def test_the_c2sp_example_vkey_and_note() -> None:
    # c2sp.org/signed-note's example.
    vkey = "example.com/foo+530d903a+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k"
    signed = (
        "This is an example message.\n\n"
        "— example.com/foo Uw2QOkn8srV1yJGh2VYRlL1Tnagv1YEq6TfXppzi2ONncAlTgK7Ztg1ERYNZXsYjOBH3mFXmRKuwHjG1Yu72IneyaQM=\n"
    )
    verifier = note.Verifier.from_vkey(vkey)
    assert verifier.id.hex() == "530d903a"
    assert note.open_note(signed, [verifier])[0] == "This is an example message.\n"


def test_a_checkpoint_is_c2sp_text_and_a_cosignature_verifies() -> None:
    log = note.Signer.generate("harbormaster.example/log")
    witness = note.Signer.generate("witness.example/w1", note.COSIGNATURE_V1)
    tree = tree_of(5)
    checkpoint = Checkpoint("harbormaster.example/log", 5, tree.root())
    assert checkpoint.text == f"harbormaster.example/log\n5\n{base64.b64encode(tree.root()).decode()}\n"
    signed = note.sign(checkpoint.text, log) + witness.cosignature_line(checkpoint.text, 1_700_000_000)
    assert open_checkpoint(signed, log.verifier, "harbormaster.example/log") == checkpoint
    _, who = note.open_note(signed, [witness.verifier])
    assert who == [witness.verifier]
    text, signatures = note.split(signed)
    assert note.cosignature_time(signatures[1]) == 1_700_000_000
    assert parse(text) == checkpoint


def test_leaves_encode_canonically() -> None:
    head = leaves.Head(stream="game", id="g1", seq=3, hash="ab")
    data = leaves.encode(head)
    assert data == b'{"finished":false,"hash":"ab","id":"g1","kind":"head","seq":3,"stream":"game"}'
    assert leaves.decode(data) == head
