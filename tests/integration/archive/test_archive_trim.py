"""Trimming: once a tournament game's archive verifies and its table is recorded, Redis keeps only its meta
and position; loading and exporting it read the archive; other games and TRIM=0 keep it all."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from events import keys
from services.archive import archive_game, archived
from services.audit.verify import verify_lines
from services.config import Settings
from services.export import export_lines
from tests.conftest import TEST_GAMES
from tests.support.pipeline import TEST_PLUGINS, finished_race, services_for
from workers.jobs import archive_trigger as archive_jobs
from workers.jobs.archive_trigger import recorded_key, trim_archived


def _game_keys(client, game_id: str) -> set[bytes]:
    return set(client.scan_iter(match=f"hm:{{g:{game_id}}}:*"))


def test_a_verified_archive_trims_the_game_which_still_loads_exports_and_verifies(
    redis_url, redis_client, tmp_path
) -> None:
    services = services_for(redis_url)
    game_id = finished_race(services, redis_url, game_id="tz-r1-t1", tournament=True)
    redis_client.sadd(recorded_key("tz"), game_id)  # its table recorded by the round job
    before = services.store.load(game_id)
    exported = list(export_lines(services.store, game_id))
    used_before = sum(redis_client.memory_usage(k) or 0 for k in _game_keys(redis_client, game_id))

    entry = archive_game(services.store, game_id, tmp_path)
    assert entry["verified"] and entry["trimmed"]
    assert not redis_client.exists(keys.events(game_id), keys.commands(game_id), keys.snapshot(game_id))
    assert redis_client.hkeys(keys.results(game_id)) == [keys.POSITION_FIELD.encode()]
    used_after = sum(redis_client.memory_usage(k) or 0 for k in _game_keys(redis_client, game_id))
    assert used_after < used_before
    # Read from the archive: the same state at the same position, the same export byte for byte.
    after = services.store.load(game_id)
    assert after.meta.archive == entry["file"]
    assert (after.seq, after.hash, after.state) == (before.seq, before.hash, before.state)
    assert list(export_lines(services.store, game_id)) == exported
    report = verify_lines(exported, TEST_GAMES)
    assert report.ok and report.finished, report.problems
    env = {**os.environ, "REDIS_URL": redis_url, "HARBORMASTER_GAME_PLUGINS": TEST_PLUGINS,
           "HARBORMASTER_LOG_LEVEL": "warning"}  # fmt: skip
    cli = subprocess.run([sys.executable, "-m", "services.cli", "export", game_id], env=env, capture_output=True,
                         timeout=60, check=True)  # fmt: skip
    assert cli.stdout.splitlines() == exported
    log = subprocess.run([sys.executable, "-m", "services.cli", "log", game_id], env=env, capture_output=True,
                         timeout=60, check=True, text=True)  # fmt: skip
    assert [json.loads(line)["seq"] for line in log.stdout.splitlines()] == list(range(1, before.seq + 1))
    # Archiving it again is a no-op that says where it is.
    assert archive_game(services.store, game_id, tmp_path)["file"] == entry["file"]


def test_a_game_outside_tournaments_is_kept(redis_url, redis_client, tmp_path) -> None:
    services = services_for(redis_url)
    game_id = finished_race(services, redis_url)
    entry = archive_game(services.store, game_id, tmp_path)
    assert entry["verified"] and not entry["trimmed"]
    assert redis_client.exists(keys.events(game_id)) and not services.store.meta(game_id).archive


def test_trim_0_keeps_the_game_in_redis(redis_url, redis_client, tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(archive_jobs, "_trim", archive_jobs.trim_enabled())  # restored after the test
    monkeypatch.setenv("HARBORMASTER_ARCHIVE_TRIM", "0")
    assert not Settings.from_env().archive_trim
    services = services_for(redis_url, archive_trim=False)  # as the settings just read hand it down
    assert not archive_jobs.trim_enabled()
    game_id = finished_race(services, redis_url, game_id="tk-r1-t1", tournament=True)
    redis_client.sadd(recorded_key("tk"), game_id)
    entry = archive_game(services.store, game_id, tmp_path)
    assert entry["verified"] and not entry["trimmed"]
    assert redis_client.exists(keys.events(game_id)) and not services.store.meta(game_id).archive
    assert archived(redis_client, [game_id])[game_id]["verified"]


def test_a_tournament_game_is_trimmed_only_once_its_table_is_recorded(
    redis_url, redis_client, tmp_path
) -> None:
    services = services_for(redis_url)
    game_id = finished_race(services, redis_url, game_id="tq-r1-t1", tournament=True)
    entry = archive_game(services.store, game_id, tmp_path)
    assert entry["verified"] and not entry["trimmed"]  # the round job has not read it yet
    assert redis_client.exists(keys.events(game_id))
    redis_client.sadd(recorded_key("tq"), game_id)  # what the round job does once it recorded the table
    assert trim_archived(services.store, [game_id]) == [game_id]
    assert not redis_client.exists(keys.events(game_id))
    assert services.store.load(game_id).seq == entry["last_seq"]
