"""A witness following a real ``serve``: its cosignatures show in the server's checkpoint; then the operator
forks the log (rewrites a leaf in Redis, rebuilds the tree, signs it again with the server's own key) and
the witness catches it: it refuses, writes both signed heads as evidence and exits 5."""

from __future__ import annotations

import base64
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import msgspec
import pytest
import redis

from events import keys
from events.tlog import leaves, merkle, note
from events.tlog.checkpoint import Checkpoint, open_checkpoint
from events.tlog.receipts import Receipt, conflicting_heads, open_receipt
from events.tlog.witness import check_evidence, cosigned_by, read_evidence
from services.log_key import decode_key
from services.redis_launcher import free_port, running_url
from services.witness import files
from services.witness.run import EXIT_FORKED

pytestmark = pytest.mark.slow


def wait_for(what: str, check: object, timeout_s: float = 60.0, every_s: float = 0.2) -> object:
    assert callable(check)
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(every_s)
    raise AssertionError(f"never: {what}")


def checkpoint(base: str) -> str | None:
    try:
        answer = httpx.get(f"{base}/api/log/checkpoint", timeout=2)
    except httpx.HTTPError:
        return None
    return answer.text if answer.status_code == 200 else None


def fork_the_log(client: redis.Redis, signer: note.Signer, index: int) -> str:
    """What an operator holding the key can do: take the sequencer's lease, rewrite leaf ``index`` (a game's
    head, given another hash), rebuild every level of the tree, sign the tree of the same size, and let the
    sequencer go on from the forged tree. Returns the forged checkpoint."""
    client.set(keys.LOG_LEASE, "the-operator", px=30_000)  # the sequencer's in-flight append now fails
    data: list[bytes] = client.lrange(keys.LOG_LEAVES, 0, -1)  # type: ignore[assignment]
    head = leaves.decode(data[index])
    assert isinstance(head, leaves.Head | leaves.Sealed)  # a live game's head is sealed
    forged = leaves.Sealed(stream=head.stream, id=head.id, seq=head.seq, seal="f" * 64)
    data[index] = leaves.encode(forged)
    tree = merkle.MemoryTree()
    for raw in data:
        tree.append(raw)
    signed = note.sign(Checkpoint(signer.name, tree.size, tree.root()).text, signer)
    pipe = client.pipeline(transaction=True)
    pipe.lset(keys.LOG_LEAVES, index, data[index])  # type: ignore[arg-type]
    for level, nodes in enumerate(tree.levels):
        pipe.delete(keys.log_level(level))
        if nodes:
            pipe.rpush(keys.log_level(level), *nodes)
    pipe.set(keys.LOG_CHECKPOINT, signed)
    pipe.zremrangebyscore(keys.LOG_CHECKPOINTS, tree.size, tree.size)
    pipe.zadd(keys.LOG_CHECKPOINTS, {signed: tree.size})
    pipe.delete(keys.LOG_LEASE)
    pipe.execute()
    return signed


def newest_head(base: str, log: note.Verifier) -> int:
    """The index of the newest game head in the log the server shows now."""
    size = open_checkpoint(str(checkpoint(base)), log, log.name).size
    start = max(0, size - 1000)
    shown = httpx.get(f"{base}/api/log/leaves", params={"start": start, "end": size}, timeout=5).json()
    kinds = (b'"kind":"head"', b'"kind":"sealed"')  # a live game's heads are sealed
    found = [
        start + i for i, raw in enumerate(shown["leaves"]) if any(k in base64.b64decode(raw) for k in kinds)
    ]
    return found[-1]


def receipt_of(base: str, index: int) -> Receipt:
    """A player's receipt for leaf ``index``, made from the log's public endpoints (its checkpoint, the
    leaf, the leaf's inclusion proof in that checkpoint)."""
    signed = str(checkpoint(base))
    size = int(note.split(signed)[0].split("\n")[1])
    shown = httpx.get(f"{base}/api/log/leaves", params={"start": index, "end": index + 1}, timeout=5).json()
    proof = httpx.get(
        f"{base}/api/log/proof/inclusion", params={"index": index, "size": size}, timeout=5
    ).json()
    return Receipt(
        checkpoint=signed,
        index=index,
        leaf=base64.b64decode(shown["leaves"][0]),
        proof=[base64.b64decode(p) for p in proof["proof"]],
    )


def test_a_witness_cosigns_a_growing_serve_and_catches_its_operator_forking_the_log(tmp_path: Path) -> None:
    data, mine = tmp_path / "data", tmp_path / "witness"
    witness_key = note.Signer.generate("witness.test/w1", note.COSIGNATURE_V1)
    mine.mkdir()
    (mine / "w.key").write_text(files.encode_key(witness_key))
    (mine / "w.key").chmod(0o600)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = {**os.environ, "HARBORMASTER_DATA": str(data), "HARBORMASTER_LOG_LEVEL": "info"}
    env |= {"HARBORMASTER_LOG_WITNESSES": witness_key.verifier.vkey, "HARBORMASTER_LOG_INTERVAL": "0.3"}
    env.pop("REDIS_URL", None)
    serve = subprocess.Popen(
        [sys.executable, "-m", "services.cli", "serve", "--demo", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    witness: subprocess.Popen[str] | None = None
    try:
        first = wait_for("a signed checkpoint", lambda: (c := checkpoint(base)) and "\n0\n" not in c and c)
        assert isinstance(first, str)
        log_key = httpx.get(f"{base}/api/log/key", timeout=2).json()
        log = note.Verifier.from_vkey(log_key["vkey"])
        assert witness_key.verifier.vkey in log_key["witnesses"]
        command = [sys.executable, "-m", "services.cli", "witness", base, "--interval", "0.3"]
        command += ["--key", str(mine / "w.key"), "--state", str(mine / "state.json")]
        witness = subprocess.Popen(
            command, env={**env, "HARBORMASTER_LOG_FORMAT": "json"}, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        sizes: set[int] = set()

        def cosigned_twice() -> bool:
            shown = checkpoint(base)
            if shown and cosigned_by(shown, witness_key.verifier):
                sizes.add(open_checkpoint(shown, log, log.name).size)
            return len(sizes) >= 2

        wait_for("the witness's cosignature on two checkpoints of a growing log", cosigned_twice)
        index = newest_head(base, log)
        alice = receipt_of(base, index)  # a player's receipt for a game's head, before the fork
        game = leaves.decode(alice.leaf)
        assert isinstance(game, leaves.Head | leaves.Sealed)
        served = httpx.get(
            f"{base}/api/games/{game.id}/receipt", timeout=5
        )  # the server's own receipt reads too
        _, proven = open_receipt(msgspec.json.decode(served.content, type=Receipt), log)
        assert isinstance(proven, leaves.Head | leaves.Sealed) and proven.id == game.id

        def witnessed() -> bool:  # the fork must rewrite what the witness has cosigned, or it sees no fork
            state = files.load_state(mine / "state.json")
            return state is not None and state.size > index

        wait_for("the witness's cosignature over the head the operator rewrites", witnessed)

        url = running_url(data)
        assert url is not None
        operator = redis.Redis.from_url(url)
        forged = fork_the_log(operator, decode_key((data / "log-signing.key").read_text(), data), index)
        bob = receipt_of(base, index)  # another player's, of the same head, after it
        why = conflicting_heads(alice, bob, log)
        assert why is not None and (
            "two different trees" in why or "two hashes for event" in why or "two seals for event" in why
        ), why
        code = witness.wait(timeout=60)
        _, stderr = witness.communicate()
        assert code == EXIT_FORKED, stderr
        alarm = next(line for line in stderr.splitlines() if '"log_forked"' in line)
        assert '"level": "error"' in alarm
        [evidence_file] = mine.glob("fork-*.txt")
        evidence = read_evidence(evidence_file.read_text())
        cosigned = open_checkpoint(evidence.cosigned, log, log.name)
        conflicting = open_checkpoint(evidence.conflicting, log, log.name)
        assert cosigned.size > index and conflicting.size >= open_checkpoint(forged, log, log.name).size
        assert evidence.fault in ("fork", "inconsistent")
        shown = check_evidence(evidence)  # raises unless the two signed heads cannot both be true
        assert "signed two roots" in shown or "not one history" in shown
        state = files.load_state(mine / "state.json")
        assert state is not None and state.halted and state.evidence == str(evidence_file)
        operator.close()
    finally:
        if witness is not None and witness.poll() is None:
            witness.kill()
            witness.wait()
        os.killpg(serve.pid, signal.SIGINT)
        try:
            serve.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(serve.pid, signal.SIGKILL)
            serve.wait()
        url = running_url(data)
        if url is not None:
            redis.Redis.from_url(url).shutdown(nosave=True)
