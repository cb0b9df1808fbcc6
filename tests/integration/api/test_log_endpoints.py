"""The log's endpoints through the real gateway, with the real fold worker, bots and a sequencer on a real
Redis: the key, the checkpoint, leaves that rebuild it, proofs that verify, every parameter checked, receipts
of a game and a tournament, and witnesses' cosignatures taken, refused and shown."""

from __future__ import annotations

import base64
import random
import threading
import time
from collections.abc import Iterator

import httpx
import msgspec
import pytest
import redis

from events.tlog import leaves, merkle, note
from events.tlog.checkpoint import Checkpoint, open_checkpoint, parse
from services.gateway.api.log_http import ConsistencyProof, InclusionProof, LeafPage, LogKey, Receipt
from services.log_settings import LogSettings
from tests.support.harness import ServerThread, running_stack
from workers.log_sequencer import LogSequencer

WITNESS = note.Signer.generate("witness.test/w1", note.COSIGNATURE_V1)
LOG = note.Signer.generate("harbormaster.test/log")


@pytest.fixture
def stack(redis_url: str, redis_client: redis.Redis) -> Iterator[ServerThread]:
    """The stack, with one configured witness, and a sequencer every 50 ms."""
    settings = {"log": LogSettings(witnesses=(WITNESS.verifier.vkey,))}
    with running_stack(redis_url, settings=settings) as server:
        sequencer = LogSequencer(redis.Redis.from_url(redis_url), LOG, interval_s=0.05)
        thread = threading.Thread(target=sequencer.run, daemon=True)
        thread.start()
        try:
            yield server
        finally:
            sequencer.stopping.set()
            thread.join(timeout=10)


def finished_game(api: httpx.Client) -> str:
    body = {"game": "manila", "seats": 3, "bots": {"0": "greedy", "1": "random", "2": "greedy"}}
    game_id: str = api.post("/api/games", json=body).json()["game_id"]
    deadline = time.monotonic() + 120
    while api.get(f"/api/games/{game_id}").json()["status"] != "finished":
        assert time.monotonic() < deadline
        time.sleep(0.2)
    return game_id


def signed_checkpoint(api: httpx.Client) -> tuple[str, Checkpoint]:
    response = api.get("/api/log/checkpoint")
    assert response.status_code == 200 and response.headers["content-type"] == "text/plain; charset=utf-8"
    return response.text, open_checkpoint(response.text, LOG.verifier, LOG.name)


def receipt_when_final(api: httpx.Client, path: str) -> Receipt:
    deadline = time.monotonic() + 30
    while True:
        response = api.get(path)
        if response.status_code == 200:
            receipt = msgspec.json.decode(response.content, type=Receipt)
            head = leaves.decode(base64.b64decode(receipt.leaf))
            if isinstance(head, leaves.Head) and head.finished:
                return receipt
        assert time.monotonic() < deadline, response.text
        time.sleep(0.1)


def test_the_log_over_http_rebuilds_proves_and_gives_a_game_its_receipt(api: httpx.Client) -> None:
    game_id = finished_game(api)
    receipt = receipt_when_final(api, f"/api/games/{game_id}/receipt")
    key = msgspec.json.decode(api.get("/api/log/key").content, type=LogKey)
    assert (key.origin, key.vkey, key.retired, key.witnesses) == (
        LOG.name,
        LOG.verifier.vkey,
        [],
        [WITNESS.verifier.vkey],
    )
    _, checkpoint = signed_checkpoint(api)
    tree, start = merkle.MemoryTree(), 0
    while start < checkpoint.size:
        page = msgspec.json.decode(
            api.get("/api/log/leaves", params={"start": start, "end": checkpoint.size}).content, type=LeafPage
        )
        for item in page.leaves:
            tree.append(base64.b64decode(item))
        start += len(page.leaves)
    assert tree.root(checkpoint.size) == checkpoint.root
    rng = random.Random(3)
    for _ in range(20):
        size = rng.randint(1, checkpoint.size)
        index, old = rng.randint(0, size - 1), rng.randint(0, size)
        body = api.get("/api/log/proof/inclusion", params={"index": index, "size": size}).content
        proof = [base64.b64decode(p) for p in msgspec.json.decode(body, type=InclusionProof).proof]
        merkle.verify_inclusion(tree.levels[0][index], index, size, proof, tree.root(size))
        body = api.get("/api/log/proof/consistency", params={"old": old, "new": size}).content
        proof = [base64.b64decode(p) for p in msgspec.json.decode(body, type=ConsistencyProof).proof]
        merkle.verify_consistency(old, size, tree.root(old), tree.root(size), proof)
    # The receipt: the game's final head, proven in the checkpoint it carries.
    signed = open_checkpoint(receipt.checkpoint, LOG.verifier, LOG.name)
    data = base64.b64decode(receipt.leaf)
    merkle.verify_inclusion(
        merkle.leaf_hash(data),
        receipt.index,
        receipt.size,
        [base64.b64decode(p) for p in receipt.proof],
        signed.root,
    )
    state = api.get(f"/api/games/{game_id}/events", params={"from": 0, "limit": 5000}).json()
    last = state["events"][-1]
    assert leaves.decode(data) == leaves.Head(
        stream="game", id=game_id, seq=last["seq"], hash=last["hash"], finished=True
    )
    assert receipt.seed_commitment and (receipt.stream, receipt.id, receipt.size) == (
        "game",
        game_id,
        signed.size,
    )


def test_every_parameter_is_checked(api: httpx.Client) -> None:
    finished_game(api)
    _, checkpoint = signed_checkpoint(api)
    size = checkpoint.size + 10_000  # past the tree, whatever the sequencer adds meanwhile
    refused: list[tuple[str, dict[str, int | str], str]] = [
        ("/api/log/leaves", {"start": "x"}, "must be an integer"),
        ("/api/log/leaves", {"start": -1}, "must be between"),
        ("/api/log/leaves", {"start": 5, "end": 4}, "end must not be below start"),
        ("/api/log/leaves", {"start": size}, "beyond the tree"),
        ("/api/log/proof/inclusion", {"size": 3}, "index is required"),
        ("/api/log/proof/inclusion", {"index": 3, "size": 3}, "not below size"),
        ("/api/log/proof/inclusion", {"index": 0, "size": 0}, "between 1"),
        ("/api/log/proof/inclusion", {"index": 0, "size": size}, "beyond the tree"),
        ("/api/log/proof/inclusion", {"index": "1_0", "size": 20}, "must be an integer"),
        ("/api/log/proof/consistency", {"old": 4, "new": 3}, "above new"),
        ("/api/log/proof/consistency", {"old": 1}, "new is required"),
        ("/api/log/proof/consistency", {"old": 1, "new": size}, "beyond the tree"),
    ]
    for path, params, message in refused:
        response = api.get(path, params=params)
        assert response.status_code == 400 and message in response.json()["message"], (
            path,
            params,
            response.text,
        )
    page = api.get("/api/log/leaves", params={"start": 0, "end": 10**6}).json()
    # at most 1000 at once; the sequencer may have logged more since the checkpoint was read
    assert min(1000, checkpoint.size) <= len(page["leaves"]) <= 1000
    assert api.get("/api/log/proof/consistency", params={"old": 0, "new": 0}).json()["proof"] == []
    missing = api.get("/api/games/nope/receipt")
    assert missing.status_code == 404 and "nope" in missing.json()["message"]


def test_a_tournament_has_a_receipt(api: httpx.Client) -> None:
    body = {"game": "manila", "players": 3, "bots": ["greedy"], "rounds": 1, "table_size": 3, "id": "tlog"}
    created = api.post("/api/tournaments", json=body)
    assert created.status_code == 201, created.text
    deadline = time.monotonic() + 30
    while (response := api.get("/api/tournaments/tlog/receipt")).status_code != 200:
        assert time.monotonic() < deadline, response.text
        time.sleep(0.1)
    receipt = msgspec.json.decode(response.content, type=Receipt)
    signed = open_checkpoint(receipt.checkpoint, LOG.verifier)
    data = base64.b64decode(receipt.leaf)
    merkle.verify_inclusion(
        merkle.leaf_hash(data),
        receipt.index,
        receipt.size,
        [base64.b64decode(p) for p in receipt.proof],
        signed.root,
    )
    head = leaves.decode(data)
    assert isinstance(head, leaves.Head) and (head.stream, head.id, head.seq) == ("tournament", "tlog", 1)


def test_a_witness_cosignature_is_taken_shown_and_refused_when_it_should_be(api: httpx.Client) -> None:
    game_id = finished_game(api)
    receipt_when_final(api, f"/api/games/{game_id}/receipt")  # the log has it all: no newer checkpoint comes
    signed, checkpoint = signed_checkpoint(api)
    text = note.split(signed)[0]
    line = WITNESS.cosignature_line(text, int(time.time()))
    assert api.post("/api/log/cosignature", content=signed + line).status_code == 204
    shown = api.get("/api/log/checkpoint").text
    assert shown == signed + line  # the latest checkpoint, shown with the witness's line
    assert note.open_note(shown, [WITNESS.verifier])[1] == [WITNESS.verifier]
    stranger = note.Signer.generate("witness.test/stranger", note.COSIGNATURE_V1)
    refusals = [
        (signed + stranger.cosignature_line(text, 1), 403, "no valid cosignature"),
        (signed + line.replace(line.split(" ")[2][:8], "AAAAAAAA"), 403, "no valid cosignature"),
        ("hello", 400, "not a signed checkpoint"),
    ]
    forged = Checkpoint(checkpoint.origin, checkpoint.size, bytes(32)).text
    refusals.append((note.sign(forged, LOG) + WITNESS.cosignature_line(forged, 1), 409, "never signed"))
    for body, status, message in refusals:
        response = api.post("/api/log/cosignature", content=body)
        assert response.status_code == status and message in response.json()["message"], response.text
    assert api.get("/api/log/checkpoint").text == shown  # nothing refused was kept
    older = note.Signer.generate("harbormaster.test/other")  # a note of another log, cosigned
    other = Checkpoint("harbormaster.test/other", 1, bytes(32)).text
    response = api.post(
        "/api/log/cosignature", content=note.sign(other, older) + WITNESS.cosignature_line(other, 1)
    )
    assert (
        response.status_code == 409
        and parse(note.split(api.get("/api/log/checkpoint").text)[0]) == checkpoint
    )
