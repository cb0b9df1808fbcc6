"""A verified archive file is never replaced, even after Redis lost its last seconds (issue 42, found by the
tournament chaos run with its rollback fault): a game ended, was archived and verified; Redis went back to a
copy taken mid-game (the index entry gone with it); the game was played to another end and archived again,
and the second file was renamed over the first. Now the first stays byte for byte, the second is kept beside
it as a conflict, and the archive verb, ``verify`` and ``tournament verify`` say so. An identical re-archive
(a retried job, an index entry lost) changes nothing. Real Redis (restarted on its earlier append-only file),
real fold worker, real files."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from structlog.testing import capture_logs

from services.archive import archive_game, archive_path, archived
from services.archive_conflict import conflict_files
from services.audit.tournament_games import GameLine, _check_conflict
from services.audit.tournament_verify import TournamentReport
from services.audit.verify import verify_file
from services.bootstrap import Services
from services.games import create_game
from tests.support.pipeline import TEST_PLUGINS, eventually, services_for, stop_process, worker_process
from tests.support.rollback import RollbackRedis
from workers.jobs.archive_trigger import ARCHIVE_INDEX

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="embedded Redis")


def play(services: Services, url: str, game_id: str, commands: list[bytes]) -> None:
    """The commands through the bus and a real fold worker, until the game ends."""
    fold = worker_process(url, services.bus.partitions, {"HARBORMASTER_ARCHIVE": "off"})
    try:
        for command in commands:
            services.bus.submit(game_id, 0, command, None)
        eventually(lambda: services.store.meta(game_id).status == "finished", 90, "game end")
    finally:
        stop_process(fold)


ROLLS = [b'{"type": "Roll"}'] * 6  # a die rolls at least 1: six rolls reach the goal of 6


def cli(url: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "REDIS_URL": url, "HARBORMASTER_GAME_PLUGINS": TEST_PLUGINS,
           "HARBORMASTER_ARCHIVE": "off", "HARBORMASTER_LOG_LEVEL": "warning"}  # fmt: skip
    return subprocess.run([sys.executable, "-m", "services.cli", *args], env=env, capture_output=True,
                          text=True, timeout=120)  # fmt: skip


def test_a_verified_archive_outlives_a_rollback_and_the_second_end_is_a_reported_conflict(tmp_path) -> None:
    server = RollbackRedis(tmp_path / "data")
    url = server.start()
    folder = tmp_path / "archive"
    try:
        services = services_for(url)
        game_id, _ = create_game(services, "race", 1, {"goal": 6}, game_id="rollback-1")
        server.snapshot()  # what Redis will go back to: the game created, not yet played
        play(services, url, game_id, ROLLS)
        first = archive_game(services.store, game_id, folder)
        assert first.get("verified") is True and "conflict" not in first, first
        path = archive_path(folder, game_id)
        kept = path.read_bytes()

        server.roll_back()
        services = services_for(url)
        assert archived(services.redis, [game_id]) == {}  # the verified entry went with the lost seconds
        play(services, url, game_id, [b'{"type": "Note", "text": "again"}', *ROLLS])  # another end
        assert services.store.meta(game_id).last_hash != first["last_hash"]

        with capture_logs() as logs:
            second = archive_game(services.store, game_id, folder)
        assert path.read_bytes() == kept  # the first file, byte for byte
        assert second["file"] == str(path) and second["last_hash"] == first["last_hash"], second
        conflict = second["conflict"]
        assert conflict["last_hash"] == services.store.meta(game_id).last_hash, second
        assert [str(p) for p in conflict_files(path)] == [conflict["file"]]
        assert verify_file(Path(conflict["file"]), services.store.games).ok  # the second end, kept whole
        logged = [e for e in logs if e["event"] == "archive_conflict"]
        assert len(logged) == 1 and logged[0]["kept_last_hash"] == first["last_hash"], logs
        assert logged[0]["conflict_last_hash"] == conflict["last_hash"] and logged[0]["kept_sha256"]
        assert archived(services.redis, [game_id])[game_id]["conflict"]["file"] == conflict["file"]

        again = archive_game(services.store, game_id, folder)  # a retried job: nothing new
        assert again.pop("trimmed") is False  # Redis's copy stays while two archives disagree
        assert again == archived(services.redis, [game_id])[game_id] and path.read_bytes() == kept
        assert len(conflict_files(path)) == 1

        services.redis.hdel(ARCHIVE_INDEX, game_id)  # the mark lost too (another rollback): found on disk
        archived_verb = cli(url, "archive", "--to", str(folder), game_id)
        assert archived_verb.returncode == 1 and f"CONFLICT {game_id}" in archived_verb.stderr, archived_verb
        assert path.read_bytes() == kept and len(conflict_files(path)) == 1
        verified = cli(url, "verify", str(path))
        assert verified.returncode == 1 and verified.stdout.startswith(f"OK race {game_id}:"), verified
        assert "CONFLICT: a different archive of this game" in verified.stderr, verified.stderr
        assert cli(url, "verify", conflict["file"]).returncode == 1

        report = TournamentReport()  # tournament verify, given the folder: a problem, neither file proven
        line = GameLine(kind="game", round=1, table=1, game_id=game_id, archive_last_hash=first["last_hash"])
        _check_conflict(line, folder, "round 1 table 1", report)
        assert len(report.problems) == 1 and "archive conflict" in report.problems[0], report.problems
        listed = GameLine(kind="game", round=1, table=1, game_id=game_id, archive_conflict=conflict)
        _check_conflict(listed, None, "round 1 table 1", report)  # from the export's line, no folder at hand
        assert len(report.problems) == 2 and conflict["last_hash"] in report.problems[1], report.problems
    finally:
        server.stop()


def test_an_identical_re_archive_is_a_no_op_success(redis_url, redis_client, tmp_path) -> None:
    services = services_for(redis_url)
    game_id, _ = create_game(services, "race", 1, {"goal": 6}, game_id="same-1")
    play(services, redis_url, game_id, ROLLS)
    first = archive_game(services.store, game_id, tmp_path)
    path = archive_path(tmp_path, game_id)
    before = path.stat()
    redis_client.hdel(ARCHIVE_INDEX, game_id)  # the index entry lost: the file is found the same
    again = archive_game(services.store, game_id, tmp_path)
    assert again.get("verified") is True and "conflict" not in again, again
    assert {k: again[k] for k in ("file", "last_seq", "last_hash", "bytes")} == {
        k: first[k] for k in ("file", "last_seq", "last_hash", "bytes")
    }
    after = path.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)  # not written again
    assert conflict_files(path) == [] and sorted(p.name for p in tmp_path.iterdir()) == [path.name]


def test_the_bucket_never_replaces_an_object(tmp_path, monkeypatch) -> None:
    """The same rule in the bucket: an upload is conditional (``If-None-Match: *``); the same bytes again
    are confirmed, different ones refused and the stored object kept (moto's S3 server, over HTTP)."""
    import boto3
    from moto.server import ThreadedMotoServer

    from services.archive_bucket import ArchiveBucket, BucketError

    for variable, value in {"AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test",
                            "AWS_DEFAULT_REGION": "us-east-1"}.items():  # fmt: skip
        monkeypatch.setenv(variable, value)
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    try:
        host, port = server.get_host_and_port()
        endpoint = f"http://{host}:{port}"
        boto3.client("s3", endpoint_url=endpoint).create_bucket(Bucket="never-replaced")
        bucket = ArchiveBucket("s3://never-replaced/games", endpoint)
        path = tmp_path / "g-1.jsonl.gz"
        path.write_bytes(b"first archive")
        assert bucket.upload(path) == "s3://never-replaced/games/g-1.jsonl.gz"
        assert bucket.upload(path) == "s3://never-replaced/games/g-1.jsonl.gz"  # a retry: confirmed
        path.write_bytes(b"second, different archive")
        with pytest.raises(BucketError, match="kept as it is"):
            bucket.upload(path)
        stored = bucket.client.get_object(Bucket="never-replaced", Key="games/g-1.jsonl.gz")["Body"].read()
        assert stored == b"first archive"
    finally:
        server.stop()


def test_a_damaged_file_under_the_name_is_no_archive_and_is_replaced(redis_url, tmp_path) -> None:
    """Nothing verified is lost when the file under the name does not verify (here: not even gzip)."""
    services = services_for(redis_url)
    game_id, _ = create_game(services, "race", 1, {"goal": 6}, game_id="damaged-1")
    play(services, redis_url, game_id, ROLLS)
    path = archive_path(tmp_path, game_id)
    path.write_bytes(b"not an archive")
    entry = archive_game(services.store, game_id, tmp_path)
    assert entry.get("verified") is True and "conflict" not in entry, entry
    assert verify_file(path, services.store.games).ok and conflict_files(path) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == [path.name]  # the damaged one set aside and gone
