"""The anchor checks on a small chain, offline: a log that does not hash to its checkpoint, a checkpoint of
another origin or key, an old key after a rotation, a receipt whose proof fails, a damaged log file, and a
chain cut after a logged head. Each is named; nothing raises."""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path

from domain.tournament import TournamentPaused
from events.chain import envelopes_for, genesis
from events.envelope import GameHeader
from events.tlog.leaves import decode
from events.tlog.note import Signer
from services.audit.anchor import NO_ANCHOR, Anchors, check_anchors
from services.audit.chains import ExportChain
from tests.support.tlog import ORIGIN, checkpoint, log_file, log_leaves, receipts_file


def _chain(events: int = 6) -> ExportChain:
    header = GameHeader(game_id="g1", game="manila", seats=3, options={},
                        seed_commitment=hashlib.sha256(b"s").hexdigest(), created_ms=1_000)  # fmt: skip
    envelopes = []
    prev = genesis(header)
    for n in range(events):  # one event a second: the log holds a head for each
        sealed = envelopes_for("g1", [TournamentPaused()], n, prev, f"c{n}", 0, 1_000 * (n + 2))
        envelopes += sealed
        prev = sealed[-1].hash
    return ExportChain(header=header, envelopes=envelopes, finished=False, command_lines=[])


def _files(tmp_path: Path, chain: ExportChain, signer: Signer) -> tuple[list[bytes], Path, Path]:
    leaves = log_leaves([chain])
    log = tmp_path / "log.jsonl"
    log.write_bytes(log_file(leaves, signer))
    held = tmp_path / "checkpoint.txt"
    held.write_text(checkpoint(leaves, signer, size=len(leaves) - 1))
    return leaves, log, held


def test_an_honest_chain_is_anchored_and_nothing_given_is_said(tmp_path: Path) -> None:
    chain, signer = _chain(), Signer.generate(ORIGIN)
    _, log, held = _files(tmp_path, chain, signer)
    assert check_anchors([chain], Anchors()).unproven == [NO_ANCHOR]
    report = check_anchors([chain], Anchors(log=log, checkpoint=held, log_key=signer.verifier.vkey))
    assert report.ok, report.problems
    assert "1 of 1 chains match the log's leaves" in report.proven


def test_a_chain_cut_after_a_logged_head_and_a_changed_leaf_are_named(tmp_path: Path) -> None:
    chain, signer = _chain(), Signer.generate(ORIGIN)
    leaves, log, held = _files(tmp_path, chain, signer)
    cut = ExportChain(header=chain.header, envelopes=chain.envelopes[:4], finished=False, command_lines=[])
    report = check_anchors([cut], Anchors(log=log, checkpoint=held, log_key=signer.verifier.vkey))
    # A live game's export cut short reads as one made before the log went on: nothing past it is proven.
    assert (
        report.problems == []
        and (
            "game g1: the log goes on to event 5 (leaf 5); the export, of the game while it was live, ends at "
            "event 4: export it again to prove the rest"
        )
        in report.unproven
    )
    # Said finished where the log goes on: events were removed.
    ended = ExportChain(header=chain.header, envelopes=chain.envelopes[:4], finished=True, command_lines=[])
    report = check_anchors([ended], Anchors(log=log, checkpoint=held, log_key=signer.verifier.vkey))
    assert report.problems == [
        f"game g1: the log holds its event 5 (hash {chain.envelopes[4].hash[:16]}…, leaf 5), but the export ends "
        "at event 4: events were removed"
    ]
    lines = log.read_text().splitlines()
    entry = json.loads(lines[3])
    entry["leaf"] = base64.b64encode(base64.b64decode(entry["leaf"]).replace(b'"seq":2', b'"seq":9')).decode()
    log.write_text("\n".join([*lines[:3], json.dumps(entry), *lines[4:]]) + "\n")
    report = check_anchors([chain], Anchors(log=log, log_key=signer.verifier.vkey))
    assert report.problems == [
        f"the log's leaves do not hash to its checkpoint's root (size {len(leaves)}): a leaf was changed"
    ]


def test_keys_origins_and_rotations(tmp_path: Path) -> None:
    chain, old, new = _chain(), Signer.generate(ORIGIN), Signer.generate(ORIGIN)
    leaves, log, held = _files(tmp_path, chain, old)  # the auditor kept a checkpoint signed by the old key
    log.write_bytes(log_file(leaves, new, retired=[old.verifier.vkey]))  # the log rotated its key since
    report = check_anchors([chain], Anchors(log=log, checkpoint=held))
    assert report.ok, report.problems  # the retired key still signs what it signed
    assert any("the log's key was read from the export" in line for line in report.unproven)
    stranger = Signer.generate("another.example/log")
    held.write_text(checkpoint(leaves, stranger))
    report = check_anchors([chain], Anchors(log=log, checkpoint=held, log_key=stranger.verifier.vkey))
    assert report.problems[0].startswith("the log's checkpoint: no signature of a trusted key")
    report = check_anchors([chain], Anchors(log=log, checkpoint=held))
    assert report.problems[0].startswith("the checkpoint you hold (checkpoint.txt) is not the log's")


def test_a_receipt_whose_proof_fails_and_files_that_are_not_ours(tmp_path: Path) -> None:
    chain, signer = _chain(), Signer.generate(ORIGIN)
    leaves, log, _ = _files(tmp_path, chain, signer)
    body = json.loads(receipts_file(leaves, signer, chain))
    receipts = tmp_path / "receipts.json"
    receipts.write_text(json.dumps(body))
    report = check_anchors([chain], Anchors(receipts=receipts))
    assert report.ok, report.problems
    assert report.proven == [
        "game g1: 6 receipts verify in their signed checkpoints, and the export holds the 6 events this player "
        "was shown"
    ]
    assert any("the log's key was read from the receipts file" in line for line in report.unproven)
    receipt = body["games"]["g1"]["receipts"][0]
    receipt["index"] += 1
    receipts.write_text(json.dumps(body))
    report = check_anchors([chain], Anchors(receipts=receipts, log_key=signer.verifier.vkey))
    assert any(
        f"the receipt of leaf {receipt['index']}: its proof does not hold" in p for p in report.problems
    )
    log.write_text('{"log": {"origin": "x", "vkey": "y"}}\n{"index": 3, "leaf": "AA=="}\n')
    report = check_anchors([chain], Anchors(log=log))
    assert report.problems == [f"{log}: line 2 is not a log line: leaf 3 comes where leaf 0 should"]
    missing = check_anchors([chain], Anchors(log=tmp_path / "none.jsonl"))
    assert missing.problems and "cannot be read" in missing.problems[0]


def test_what_is_printed_is_escaped(tmp_path: Path) -> None:
    import io

    from services.anchor_cli import report

    log = tmp_path / "log.jsonl"
    log.write_text(
        '{"log": {"origin": "x", "vkey": "y"}}\n{"index": "\\u001b[32mOK\\u202e", "leaf": "AA=="}\n'
    )
    out, err = io.StringIO(), io.StringIO()
    assert report(check_anchors([_chain()], Anchors(log=log)), out, err) == 1
    assert "\x1b" not in err.getvalue() and "\u202e" not in err.getvalue()
    assert "[32mOK" in err.getvalue()  # shown, escaped


def test_a_live_games_sealed_heads_are_checked_once_its_seed_is_revealed(tmp_path: Path) -> None:
    """The log seals a live game's heads with its seed (``events/tlog/seal.py``): a finished export, whose
    last event reveals the seed, is checked against every seal; a live one cannot be, and says so."""
    import msgspec

    from events.tlog.leaves import Sealed

    live, signer = _chain(), Signer.generate(ORIGIN)
    seed = b"s"  # _chain commits to sha256(b"s")
    last = msgspec.structs.replace(live.envelopes[-1], seed=seed)
    ended = ExportChain(
        header=live.header, envelopes=[*live.envelopes[:-1], last], finished=True, command_lines=[]
    )
    leaves = log_leaves([ended])
    assert sum(b'"kind":"sealed"' in leaf for leaf in leaves) == 5  # the last head is plain: the game ended
    log = tmp_path / "log.jsonl"
    log.write_bytes(log_file(leaves, signer))
    pinned = Anchors(log=log, log_key=signer.verifier.vkey)
    assert check_anchors([ended], pinned).ok
    log.write_bytes(log_file(leaves[:-2], signer))  # the log while the game was live: no end, no commands
    report = check_anchors([live], pinned)  # the same events, no seed revealed: the seals wait for it
    assert report.ok, report.problems
    assert any(
        "5 heads the log sealed are checked once its end reveals the seed" in u for u in report.unproven
    )
    log.write_bytes(log_file(leaves, signer))
    forged = [msgspec.structs.replace(e, hash="0" * 64) if e.seq == 3 else e for e in ended.envelopes]
    report = check_anchors([msgspec.structs.replace(ended, envelopes=forged)], pinned)
    assert report.problems[0].startswith(
        "game g1: event 3 differs from the head the log holds (leaf 3: sealed "
    )
    assert isinstance(decode(leaves[3]), Sealed)
