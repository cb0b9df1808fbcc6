"""The log under ``harbormaster serve``: the key is made at start in the data folder, ``/api/log/key`` serves
what ``harbormaster log-key`` prints, checkpoints advance while the demo games play, ``harbormaster
checkpoint`` and ``log-export`` give the running log (its export rebuilds the checkpoint's root and reads as
``verify --log`` reads it), and a sequencer killed with ``kill -9`` is replaced and the log goes on, consistent."""

from __future__ import annotations

import base64
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from events.tlog import merkle, note
from events.tlog.checkpoint import open_checkpoint
from services.audit.log_file import read_log
from services.redis_launcher import free_port
from tests.integration.serve.test_serve import _children
from tests.support.pipeline import stop_serve


def harbormaster(env: dict[str, str], *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "services.cli", *args], env=env, capture_output=True, timeout=60
    )
    assert done.returncode == 0, done.stderr.decode()
    return done.stdout.decode()


@pytest.mark.skipif(sys.platform != "linux", reason="finds serve's children in /proc")
def test_serve_signs_advancing_checkpoints_with_the_key_log_key_prints(tmp_path: Path) -> None:
    port = free_port()
    env = {**os.environ, "HARBORMASTER_DATA": str(tmp_path), "HARBORMASTER_LOG_INTERVAL": "0.5",
           "HARBORMASTER_ARCHIVE": str(tmp_path / "archive")}  # fmt: skip
    env.pop("REDIS_URL", None)
    with open(tmp_path / "serve.log", "wb") as out:
        serve = subprocess.Popen(
            [sys.executable, "-m", "services.cli", "serve", "--demo", "--port", str(port)],
            env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
    try:
        api = httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=10)
        sizes: list[int] = []
        verifier: note.Verifier | None = None
        deadline = time.monotonic() + 90
        while len(set(sizes)) < 3:  # three different sizes: the log grows as the demo games play
            assert serve.poll() is None and time.monotonic() < deadline, (tmp_path / "serve.log").read_text()[
                -3000:
            ]
            try:
                response = api.get("/api/log/checkpoint")
            except httpx.HTTPError:
                response = None
            if response is not None and response.status_code == 200:
                key = api.get("/api/log/key").json()
                verifier = note.Verifier.from_vkey(key["vkey"])
                sizes.append(open_checkpoint(response.text, verifier).size)
            time.sleep(0.3)
        assert sizes == sorted(sizes) and verifier is not None
        printed = json.loads(harbormaster(env, "log-key"))
        assert printed == {k: key[k] for k in ("origin", "vkey", "retired")}
        assert (tmp_path / "log-signing.key").stat().st_mode & 0o777 == 0o600
        signed = harbormaster(env, "checkpoint")
        assert open_checkpoint(signed, note.Verifier.from_vkey(key["vkey"])).size >= sizes[-1]
        lines = [json.loads(line) for line in harbormaster(env, "log-export").splitlines()]
        assert lines[0] == {"log": printed}
        tree = merkle.MemoryTree()
        for n, line in enumerate(lines[1:-1]):
            assert line["index"] == n
            tree.append(base64.b64decode(line["leaf"]))
        exported = open_checkpoint(lines[-1]["checkpoint"], note.Verifier.from_vkey(key["vkey"]))
        assert (exported.size, exported.root) == (tree.size, tree.root())
        (tmp_path / "log.jsonl").write_text(harbormaster(env, "log-export"))
        read = read_log(tmp_path / "log.jsonl")  # what verify --log reads
        assert (
            read.keys.vkey == key["vkey"]
            and len(read.leaves) == open_checkpoint(read.checkpoint, verifier).size
        )
        # verify --log takes the running service's address, and the log folder serve keeps by the archives.
        game_id = api.get("/api/games").json()["games"][0]["game_id"]
        (tmp_path / "game.jsonl").write_text(harbormaster(env, "export", game_id))
        deadline = time.monotonic() + 30
        while not (tmp_path / "archive" / "log" / "log-head.jsonl").exists():
            assert time.monotonic() < deadline, "serve's pass did not write the log folder"
            time.sleep(0.3)
        for source in (f"http://127.0.0.1:{port}", str(tmp_path / "archive" / "log")):
            checked = subprocess.run(
                [sys.executable, "-m", "services.cli", "verify", str(tmp_path / "game.jsonl"), "--log", source,
                 "--log-key", key["vkey"]],
                env=env, capture_output=True, text=True, timeout=60,
            )  # fmt: skip
            assert checked.returncode == 0 and "ANCHORED" in checked.stdout, checked.stdout + checked.stderr
        # kill -9 of the sequencer: serve starts another, which takes the lease once it expires and goes on
        # from the tree in Redis, consistent with what was signed before.
        [sequencer] = [
            pid for pid, cmd in _children(serve.pid).items() if cmd.endswith("services.cli sequencer ")
        ]
        os.kill(sequencer, signal.SIGKILL)
        time.sleep(0.5)  # a script it sent before it died has run by now
        before = open_checkpoint(api.get("/api/log/checkpoint").text, verifier)
        deadline = time.monotonic() + 60
        while (later := open_checkpoint(api.get("/api/log/checkpoint").text, verifier)).size <= before.size:
            assert time.monotonic() < deadline, "no checkpoint after the sequencer was killed"
            time.sleep(0.3)
        again = [pid for pid, cmd in _children(serve.pid).items() if cmd.endswith("services.cli sequencer ")]
        assert again and sequencer not in again  # serve started another
        proof = api.get("/api/log/proof/consistency", params={"old": exported.size, "new": later.size}).json()
        merkle.verify_consistency(
            exported.size,
            later.size,
            exported.root,
            later.root,
            [base64.b64decode(p) for p in proof["proof"]],
        )
    finally:
        stop_serve(serve, tmp_path)
