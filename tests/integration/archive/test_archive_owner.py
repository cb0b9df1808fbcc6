"""One writer owns a game's archive (issue 42, finding 1): a late writer never replaces a verified archive,
a trim happens only under the archive's lease, and a live game is not archived (issue 43, finding 6)."""

from __future__ import annotations

import json
import threading

import pytest

from events import keys
from services.archive import NotFinished, archive_game, archive_path, archived
from services.audit.verify import verify_file
from services.export import export_lines
from services.games import create_game
from tests.support.pipeline import finished_race, services_for
from workers.jobs import archive_trigger
from workers.jobs.archive_trigger import ARCHIVE_INDEX, archive_lease, recorded_key, trim_archived


def test_a_late_writer_paused_mid_export_cannot_replace_the_verified_archive(
    redis_url, redis_client, tmp_path, monkeypatch
) -> None:
    """The report's race made to happen: writer A starts reading the game; while it is paused, writer B
    archives, verifies and trims; A then goes on. Before, A's file (every event, no command) replaced B's."""
    services = services_for(redis_url)
    game_id = finished_race(services, redis_url, game_id="ow-r1-t1", tournament=True)
    redis_client.sadd(recorded_key("ow"), game_id)
    paused, go_on = threading.Event(), threading.Event()
    real_export = export_lines

    def paused_export(store, gid):  # writer A: paused after its first line
        lines = real_export(store, gid)
        yield next(lines)
        paused.set()
        go_on.wait(30)
        yield from lines

    import services.archive as archive_module

    monkeypatch.setattr(archive_module, "export_lines", paused_export)
    first: dict[str, object] = {}
    writer_a = threading.Thread(target=lambda: first.update(archive_game(services.store, game_id, tmp_path)))
    writer_a.start()
    assert paused.wait(30)
    # Writer B comes while A holds the game's archive: it leaves the archive to A.
    monkeypatch.setattr(archive_module, "export_lines", real_export)
    second = archive_game(services.store, game_id, tmp_path)
    assert second.get("busy") is True and not second.get("verified")
    assert trim_archived(services.store, [game_id]) == []  # nor can anybody trim it meanwhile
    go_on.set()
    writer_a.join(30)
    assert first["verified"] and first["trimmed"]
    path = archive_path(tmp_path, game_id)
    good = path.read_bytes()
    stat = path.stat()
    # A third writer after the trim, and one that ignores the trim (meta.archive unset again): no rewrite.
    assert archive_game(services.store, game_id, tmp_path)["verified"]
    redis_client.hdel(keys.meta(game_id), "archive")
    assert archive_game(services.store, game_id, tmp_path)["verified"]
    assert path.read_bytes() == good and path.stat().st_mtime_ns == stat.st_mtime_ns
    report = verify_file(path, services.store.games)
    assert report.ok and report.finished and report.commands > 0, report.problems


def test_writers_racing_on_one_archive_leave_one_verified_file_with_every_command(
    redis_url, redis_client, tmp_path
) -> None:
    services = services_for(redis_url)
    game_id = finished_race(services, redis_url, game_id="rc-r1-t1", tournament=True)
    redis_client.sadd(recorded_key("rc"), game_id)
    commands = sum(b'"kind":"command"' in line for line in export_lines(services.store, game_id))
    results: list[dict[str, object]] = []
    barrier = threading.Barrier(8)

    def writer() -> None:
        barrier.wait()
        results.append(archive_game(services.store, game_id, tmp_path))

    threads = [threading.Thread(target=writer) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert sum(1 for r in results if r.get("verified") and not r.get("busy")) >= 1
    entry = json.loads(redis_client.hget(ARCHIVE_INDEX, game_id))
    assert entry["verified"]
    report = verify_file(archive_path(tmp_path, game_id), services.store.games)
    assert report.ok and report.finished and report.commands == commands > 0, report.problems


def test_a_lease_is_released_only_by_its_owner(redis_client) -> None:
    with archive_lease(redis_client, "lz") as token:
        assert token is not None
        with archive_lease(redis_client, "lz") as second:
            assert second is None
        redis_client.set(archive_trigger.archive_lease_key("lz"), "someone-else")
    assert redis_client.get(archive_trigger.archive_lease_key("lz")) == b"someone-else"


def test_a_live_game_is_not_archived_and_its_end_is(redis_url, redis_client, tmp_path) -> None:
    services = services_for(redis_url)
    live_id, _ = create_game(services, "race", 1, {"goal": 6}, redis_url=redis_url)
    with pytest.raises(NotFinished, match="still being played"):
        archive_game(services.store, live_id, tmp_path)
    assert archived(redis_client, [live_id]) == {}


def test_the_archive_verb_refuses_a_live_game_in_one_line(redis_url, tmp_path) -> None:
    import os
    import subprocess
    import sys

    from tests.support.pipeline import TEST_PLUGINS

    services = services_for(redis_url)
    live_id, _ = create_game(services, "race", 1, {"goal": 6}, redis_url=redis_url)
    env = {**os.environ, "REDIS_URL": redis_url, "HARBORMASTER_GAME_PLUGINS": TEST_PLUGINS,
           "HARBORMASTER_PARTITIONS": str(services.bus.partitions), "HARBORMASTER_LOG_LEVEL": "warning"}  # fmt: skip
    done = subprocess.run(
        [sys.executable, "-m", "services.cli", "archive", live_id, "--to", str(tmp_path)],
        env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode != 0 and "still being played" in done.stderr and "Traceback" not in done.stderr
    assert not list(tmp_path.iterdir())
