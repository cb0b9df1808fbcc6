"""``harbormaster tournament create --person NAME`` prints the person's key once; ``link`` gives their table."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys

from services.gateway.access.auth import new_secret, new_tokens
from tests.support.pipeline import TEST_PLUGINS


def test_create_prints_a_persons_key_and_link_finds_their_table(redis_url, redis_client) -> None:
    env = {**os.environ, "REDIS_URL": redis_url, "HARBORMASTER_GAME_PLUGINS": TEST_PLUGINS,
           "HARBORMASTER_LOG_LEVEL": "warning"}  # fmt: skip

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "services.cli", "tournament", *args], env=env,
                              capture_output=True, text=True, timeout=60)  # fmt: skip

    made = cli("create", "--game", "race", "--person", "ann", "--players", "2", "--bots", "random",
               "--table-size", "3", "--rounds", "1", "--id", "tpc")  # fmt: skip
    assert made.returncode == 0, made.stderr
    tid, person, organiser = made.stdout.splitlines()
    assert len(json.loads(organiser)["organiser_key"]) == 32
    ann = json.loads(person)
    assert tid == "tpc" and (ann["player"], ann["name"]) == (0, "ann")
    before = json.loads(cli("link", "tpc", "--key", ann["key"]).stdout)
    assert (before["round"], before["game_id"], before["link"]) == (0, None, None)  # not started yet
    assert cli("start", "tpc").returncode == 0
    now = json.loads(cli("link", "tpc", "--key", ann["key"]).stdout)
    assert now["game_id"] == "tpc-r1-t1" and now["link"] == f"/games/tpc-r1-t1#token={ann['key']}"
    tokens = redis_client.hgetall("hm:{g:tpc-r1-t1}:tokens")  # the key is a seat token there, as a digest
    assert tokens[hashlib.sha256(ann["key"].encode()).hexdigest().encode()] == str(now["seat"]).encode()
    assert ann["key"].encode() not in tokens
    wrong = cli("link", "tpc", "--key", "nope")
    assert wrong.returncode == 2 and "not the key of a person" in wrong.stderr


def test_keys_and_seat_tokens_never_start_with_a_dash() -> None:
    """``--key -AbC…`` would be taken for an option (one key in 64 started with ``-`` before)."""
    assert not any(new_secret().startswith("-") for _ in range(3000))
    assert not any(token.startswith("-") for token in new_tokens(range(3000)).values())
