"""The embedded Redis launcher: AOF on, and a stop and start on the same folder loses nothing."""

from __future__ import annotations

import pytest

from services.redis_launcher import EmbeddedRedis, running_url
from tests.support.pipeline import new_race, services_for
from workers.fold import FoldWorker

pytestmark = pytest.mark.redis


def test_restarting_on_the_same_data_folder_loses_no_appended_event(tmp_path) -> None:
    server = EmbeddedRedis(tmp_path / "data")
    url = server.start()
    services = services_for(url)
    new_race(services, "g1", seats=2)
    for i in range(30):
        services.bus.submit("g1", i % 2, b'{"type":"Roll"}')
    FoldWorker(services.redis, services.store, services.bus, block_ms=20).run(until_idle=True)
    before = [e.hash for e in services.store.read("g1")]
    services.redis.close()
    assert running_url(tmp_path / "data") == url
    server.stop()
    assert running_url(tmp_path / "data") is None

    again = EmbeddedRedis(tmp_path / "data")
    services = services_for(again.start())
    try:
        assert [e.hash for e in services.store.read("g1")] == before
        assert len(before) == 31
        assert services.store.meta("g1").last_seq == 31
    finally:
        services.redis.close()
        again.stop()


def test_append_only_persistence_is_on(tmp_path) -> None:
    with EmbeddedRedis(tmp_path / "data") as server:
        services = services_for(server.url)
        assert services.redis.config_get("appendonly") == {"appendonly": "yes"}
        assert services.redis.config_get("dir")["dir"] == str(tmp_path / "data")
        services.redis.close()
