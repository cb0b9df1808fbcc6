"""The archive: a finished game is written by an rq job as gzipped JSON Lines that ``verify`` accepts."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys

from services.archive import archive_path, archived, write_archive
from services.audit.verify import verify_file
from services.export import export_lines
from services.games import create_game
from tests.support.pipeline import (
    RACE_PLUGIN,
    TEST_PLUGINS,
    eventually,
    finished_race,
    services_for,
    stop_process,
    worker_process,
)


def test_a_finished_game_is_archived_by_rq_and_verifies(redis_url, redis_client, tmp_path) -> None:
    services = services_for(redis_url)
    folder = tmp_path / "archive"
    game_id, _ = create_game(
        services, "race", 2, {"goal": 20}, bots={0: "random", 1: "greedy"}, redis_url=redis_url
    )
    # Kept in Redis after archiving (test_archive_trim.py trims), so the export can be compared with it.
    env = {**os.environ, "REDIS_URL": redis_url, "HARBORMASTER_GAME_PLUGINS": RACE_PLUGIN,
           "HARBORMASTER_PARTITIONS": str(services.bus.partitions), "HARBORMASTER_LOG_LEVEL": "warning",
           "HARBORMASTER_ARCHIVE_TRIM": "0"}  # fmt: skip
    rq_worker = subprocess.Popen([sys.executable, "-m", "services.cli", "rq-worker", "--no-fork"], env=env)
    fold = worker_process(redis_url, services.bus.partitions, {"HARBORMASTER_ARCHIVE": str(folder)})
    try:
        eventually(lambda: game_id in archived(redis_client, [game_id]), timeout=90, message="archived")
    finally:
        stop_process(fold)
        rq_worker.terminate()
        rq_worker.wait(timeout=20)

    meta = services.store.meta(game_id)
    entry = archived(redis_client, [game_id])[game_id]
    path = archive_path(folder, game_id)
    assert entry["file"] == str(path) and entry["last_hash"] == meta.last_hash
    assert entry["last_seq"] == meta.last_seq == meta.last_seq and entry["bytes"] == path.stat().st_size
    # The very export, compressed; and archiving again gives the same bytes (no time in the gzip header).
    assert gzip.decompress(path.read_bytes()) == b"".join(
        line + b"\n" for line in export_lines(services.store, game_id)
    )
    first = path.read_bytes()
    write_archive(services.store, game_id, folder)
    assert path.read_bytes() == first
    report = verify_file(path, services.store.games)
    assert report.ok and report.finished and report.decisions_checked, report.problems
    # The command line verifies the archive as it is.
    verified = subprocess.run([sys.executable, "-m", "services.cli", "verify", str(path)], env=env,
                              capture_output=True, text=True, timeout=60)  # fmt: skip
    assert verified.returncode == 0 and verified.stdout.startswith(f"OK race {game_id}:"), verified.stderr


def test_the_archive_verb_archives_finished_games_and_verify_catches_a_missing_event(
    redis_url, redis_client, tmp_path
) -> None:
    services = services_for(redis_url)
    game_id = finished_race(services, redis_url, timeout=60)
    live_id, _ = create_game(services, "race", 1, {"goal": 6}, redis_url=redis_url)
    env = {**os.environ, "REDIS_URL": redis_url, "HARBORMASTER_GAME_PLUGINS": TEST_PLUGINS,
           "HARBORMASTER_PARTITIONS": str(services.bus.partitions), "HARBORMASTER_ARCHIVE": "off",
           "HARBORMASTER_LOG_LEVEL": "warning"}  # fmt: skip

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "services.cli", *args], env=env, capture_output=True,
                              text=True, timeout=60)  # fmt: skip

    done = cli("archive", "--to", str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert [json.loads(line)["game_id"] for line in done.stdout.splitlines()] == [game_id]  # not the live one
    assert cli("archive", "--to", str(tmp_path)).stdout == ""  # nothing left to do
    path = archive_path(tmp_path, game_id)
    lines = gzip.decompress(path.read_bytes()).splitlines()
    del lines[2]  # an event gone missing
    damaged = tmp_path / "damaged.jsonl.gz"
    damaged.write_bytes(gzip.compress(b"\n".join(lines) + b"\n"))
    refused = cli("verify", str(damaged))
    assert refused.returncode == 1 and refused.stderr.startswith("FAILED at seq "), refused.stderr
    assert live_id not in archived(redis_client, [game_id, live_id])


def test_writers_of_the_same_archive_at_once_never_collide(redis_url, redis_client, tmp_path) -> None:
    """`tournament run --external-workers` archives its games while the workers' archive jobs do: each
    writer has a temporary file of its own, so every writer finishes and the file is whole (issue 33.9)."""
    from concurrent.futures import ThreadPoolExecutor

    services = services_for(redis_url)
    game_id = finished_race(services, redis_url)
    folder = tmp_path / "archive"
    with ThreadPoolExecutor(max_workers=8) as pool:
        entries = list(pool.map(lambda _: write_archive(services.store, game_id, folder), range(16)))
    path = archive_path(folder, game_id)
    assert {e["last_hash"] for e in entries} == {services.store.meta(game_id).last_hash}
    assert sorted(p.name for p in folder.iterdir()) == [path.name]  # no temporary file left behind
    report = verify_file(path, services.store.games)
    assert report.ok and report.finished, report.problems
