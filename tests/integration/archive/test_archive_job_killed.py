"""An archive job whose work-horse is killed mid-job is archived by its retry (found by the tournament chaos
run): the killed attempt had written the file and its unverified index entry, and held the archive's lease
(10 minutes). rq's retries came at once, found the lease busy and ended as done; nothing enqueued the archive
again, so the game's archive stayed unverified and the game was never trimmed. Now the job owns the lease
under its own id, and a retry takes back what its killed attempt held; any other writer still finds it busy.
The killed attempt is made to happen: its file, its entry and its lease are left as the kill leaves them."""

from __future__ import annotations

from services.archive import archive_game, archived, run_archive_job, write_archive
from tests.support.pipeline import COUNTER_PLUGIN, RACE_PLUGIN, finished_race, services_for
from workers.jobs.archive_trigger import ARCHIVE_LEASE_MS, archive_job_id, archive_lease_key


def test_the_retry_of_a_killed_archive_job_archives_the_game(redis_url, redis_client, tmp_path) -> None:
    services = services_for(redis_url)
    game_id = finished_race(services, redis_url, game_id="kj-r1-t1", tournament=True)
    write_archive(services.store, game_id, tmp_path)  # the killed attempt got this far: file, entry
    lease = archive_lease_key(game_id)
    redis_client.set(lease, archive_job_id(game_id), px=ARCHIVE_LEASE_MS)  # and held the lease
    assert not archived(redis_client, [game_id])[game_id].get("verified")

    other = archive_game(services.store, game_id, tmp_path)  # another writer: still the job's to do
    assert other.get("busy") is True and not other.get("verified")

    entry = run_archive_job(redis_url, game_id, str(tmp_path), (RACE_PLUGIN, COUNTER_PLUGIN))  # the retry
    assert entry.get("verified") is True and not entry.get("busy"), entry
    assert archived(redis_client, [game_id])[game_id]["verified"] is True
    assert redis_client.get(lease) is None  # given back by its owner


def test_an_archive_job_rides_out_redis_gone_mid_job(tmp_path, monkeypatch) -> None:
    """Redis killed while the archive job runs: before, the job raised at once and rq, without Redis, could
    not record it; it stayed ``started`` in rq's registry, never enqueued again, and the game had no verified
    archive. Now the job waits Redis out. Made to happen: Redis is down when the job starts, and the job's
    pause between attempts (the hook) starts it again."""
    from services import archive as archive_module
    from tests.support.rollback import RollbackRedis

    server = RollbackRedis(tmp_path / "data")
    url = server.start()  # every write fsynced: a kill loses none
    try:
        services = services_for(url)
        game_id = finished_race(services, url, game_id="kr-r1-t1", tournament=True)
        services.redis.close()
        process = server.server.process
        assert process is not None
        process.kill()  # Redis gone before the job's first call
        process.wait()
        pauses: list[float] = []

        def start_redis_again(seconds: float) -> None:
            pauses.append(seconds)
            if len(pauses) == 1:
                server.start()

        monkeypatch.setattr(archive_module, "wait_for_redis", start_redis_again)
        entry = run_archive_job(url, game_id, str(tmp_path / "archive"), (RACE_PLUGIN, COUNTER_PLUGIN))
        assert pauses and entry.get("verified") is True, entry
        client = services_for(url).redis
        assert archived(client, [game_id])[game_id]["verified"] is True
        client.close()
    finally:
        server.stop()
