"""serve's archive pass (``services/archive_reconcile.py``, issue 42): a finished game whose archive hook was
lost gets its archive job from the pass, once its grace is over; an archived game is left alone; a game whose
archive failed is not tried again, and one whose archive does not verify only after a delay. Each game is played to its end by a real fold worker with
archives off, so its hook enqueues nothing (the outage's effect, made to happen); jobs run in this process
(rq's ``SimpleWorker``), and every pass is given its moment, so nothing waits on a clock."""

from __future__ import annotations

from pathlib import Path

import msgspec
import redis
from rq import Queue, SimpleWorker

from events import keys
from services.archive import archive_game, archived
from services.archive_reconcile import RETRY_AFTER_MS, reconcile_archives
from services.bootstrap import Services
from tests.support.pipeline import finished_race, services_for
from workers.jobs.archive_trigger import ARCHIVE_QUEUE, archive_job_id, mark_archive_failed


def _services(url: str, archives: Path, plugins: tuple[str, ...] | None = None) -> Services:
    """The test's services with an archive folder (and, if given, other game plugins for the jobs)."""
    services = services_for(url)
    settings = msgspec.structs.replace(services.settings, archive_dir=archives)
    if plugins is not None:
        settings = msgspec.structs.replace(settings, game_plugins=plugins)
    services.settings = settings
    return services


def _due(services: Services, game_id: str) -> int | None:
    score = services.redis.zscore(keys.ARCHIVE_PENDING, game_id)
    return None if score is None else int(score)


def _run_jobs(services: Services) -> None:
    assert services.rq is not None
    SimpleWorker([Queue(ARCHIVE_QUEUE, connection=services.rq)], connection=services.rq).work(burst=True)


def test_a_game_whose_hook_was_lost_is_archived_by_the_pass(
    redis_client: redis.Redis, redis_url: str, tmp_path: Path
) -> None:
    services = _services(redis_url, tmp_path)
    game_id = finished_race(services, redis_url)
    due = _due(services, game_id)
    assert due is not None  # its end listed it, though its hook enqueued nothing
    assert redis_client.exists(f"rq:job:{archive_job_id(game_id)}") == 0

    assert reconcile_archives(services, redis_url, due - 1) == []  # the grace: the hook's to win
    assert reconcile_archives(services, redis_url, due) == [game_id]
    assert reconcile_archives(services, redis_url, due + RETRY_AFTER_MS) == []  # queued: not twice
    _run_jobs(services)

    assert archived(services.redis, [game_id])[game_id]["verified"] is True
    assert _due(services, game_id) is None  # the verified archive took it off the list
    assert reconcile_archives(services, redis_url, due + 2 * RETRY_AFTER_MS) == []


def test_an_archived_game_is_left_alone(redis_client: redis.Redis, redis_url: str, tmp_path: Path) -> None:
    services = _services(redis_url, tmp_path)
    game_id = finished_race(services, redis_url)
    entry = archive_game(services.store, game_id, tmp_path)
    assert entry["verified"] and _due(services, game_id) is None
    # Listed again, as when the job's removal was lost to a crash after its archive verified.
    redis_client.zadd(keys.ARCHIVE_PENDING, {game_id: 0})
    written = Path(entry["file"]).stat().st_mtime_ns

    assert reconcile_archives(services, redis_url, 1) == []

    assert _due(services, game_id) is None
    assert redis_client.exists(f"rq:job:{archive_job_id(game_id)}") == 0
    assert Path(entry["file"]).stat().st_mtime_ns == written
    assert archived(services.redis, [game_id])[game_id]["verified"] is True


def test_a_failure_mark_is_respected(redis_client: redis.Redis, redis_url: str, tmp_path: Path) -> None:
    services = _services(redis_url, tmp_path)
    game_id = finished_race(services, redis_url)
    due = _due(services, game_id)
    assert due is not None
    mark_archive_failed(redis_client, game_id, "ValueError: a record of the game's own")  # as the job marks

    assert reconcile_archives(services, redis_url, due) == []

    assert _due(services, game_id) is None  # the mark's rule: not again until someone clears it
    assert redis_client.exists(f"rq:job:{archive_job_id(game_id)}") == 0


def test_an_archive_that_fails_to_verify_is_not_tried_every_pass(
    redis_client: redis.Redis, redis_url: str, tmp_path: Path
) -> None:
    # The jobs load no game plugins: the race's archive is written but cannot verify (its rules unknown), and
    # the job ends with neither a verified entry nor a failure mark.
    services = _services(redis_url, tmp_path, plugins=())
    game_id = finished_race(services, redis_url)
    due = _due(services, game_id)
    assert due is not None
    assert reconcile_archives(services, redis_url, due) == [game_id]
    _run_jobs(services)
    entry = archived(services.redis, [game_id])[game_id]
    assert not entry.get("verified") and not redis_client.hexists(keys.ARCHIVE_FAILED, game_id)

    for moment in (due, due + 1, due + RETRY_AFTER_MS - 1):
        assert reconcile_archives(services, redis_url, moment) == []
    assert reconcile_archives(services, redis_url, due + RETRY_AFTER_MS) == [game_id]  # once per delay
    assert _due(services, game_id) == due + 2 * RETRY_AFTER_MS
